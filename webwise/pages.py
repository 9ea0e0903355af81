"""An HTTP server for the MiniWoB++ pages.

Pages are always served over HTTP, never file://: the flight tasks need it and remote
Selenium Grid nodes cannot read this machine's files. One quiet server thread per process.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    #: The pages are UTF-8 but say no charset; unlabelled, Chromium read unicode-test's
    #: 'ÖK' as 'Ã–K' in both the instruction and the page, and a model saw the mojibake.
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8"}

    def log_message(self, format: str, *args: object) -> None:
        """Keep request logs off the user's terminal."""


class PageServer:
    """Serves a directory on ``host:port`` (port 0 picks a free one) from a daemon thread."""

    def __init__(self, root: Path, host: str = "127.0.0.1", port: int = 0) -> None:
        handler = functools.partial(_QuietHandler, directory=str(root))
        self._server = http.server.ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="webwise-pages", daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
