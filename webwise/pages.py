"""An HTTP server for the MiniWoB++ pages.

Pages are always served over HTTP, never file://: the flight tasks need it and remote
Selenium Grid nodes cannot read this machine's files. One quiet server thread per process.
The address served on must be one the Grid's nodes reach (``--page-host``); the pages' URLs
name it, and they are what the node's browser loads.
"""

from __future__ import annotations

import functools
import http.server
import socket
import threading
from pathlib import Path


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    #: The pages are UTF-8 but say no charset; unlabelled, Chromium read unicode-test's
    #: 'ÖK' as 'Ã–K' in both the instruction and the page, and a model saw the mojibake.
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8"}

    def log_message(self, format: str, *args: object) -> None:
        """Keep request logs off the user's terminal."""


#: Addresses that mean "every interface": a fine place to listen, but no address to load from.
_WILDCARDS = ("", "0.0.0.0", "::")


class _Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET


class _Server6(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6


class PageServer:
    """Serves a directory on ``host:port`` (port 0 picks a free one) from a daemon thread."""

    def __init__(self, root: Path, host: str = "127.0.0.1", port: int = 0) -> None:
        handler = functools.partial(_QuietHandler, directory=str(root))
        server = _Server6 if ":" in host else _Server
        self._server = server((host, port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="webwise-pages", daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        """Where a browser loads the pages from, a Grid node's included.

        A server listening on every interface (``--page-host 0.0.0.0``) is named by this
        machine's host name: ``http://0.0.0.0:PORT`` sent to a remote node is the node itself,
        and every page failed to load there. An IPv6 address goes in brackets, as URLs need.
        """
        host, port = self._server.server_address[:2]
        name = socket.gethostname() if host in _WILDCARDS else host
        return f"http://[{name}]:{port}" if ":" in name else f"http://{name}:{port}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
