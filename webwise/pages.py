"""An HTTP server for the MiniWoB++ pages.

Pages are always served over HTTP, never file://: the flight tasks need it and remote
Selenium Grid nodes cannot read this machine's files. One quiet server thread per process.
The address served on must be one the Grid's nodes reach (``--page-host``); the pages' URLs
name it, and they are what the node's browser loads.

Every page is served with a Content Security Policy that lets only its own ``<script>``
elements run. A program types and clicks, which is data, but some pages write what was typed
into themselves as HTML: terminal echoes each command line through ``innerHTML``, so typing
``<img src=x onerror=core.endEpisode(1,true)>`` and Enter ran the program's JavaScript in the
page, which set a full reward for a task never solved. Each response gives its page's script
elements a fresh nonce, and the policy admits those and nothing else: no inline event
handler, no ``javascript:`` URL, no script an insertion brings in, no ``eval``. The driver's
own scripts (how webwise reads and resets a page) are not the page's and pass, as WebDriver's
always do.
"""

from __future__ import annotations

import functools
import http.server
import io
import re
import secrets
import socket
import threading
from pathlib import Path
from typing import BinaryIO

_SCRIPT_TAG = re.compile(rb"<script\b", re.IGNORECASE)


def content_policy(nonce: str) -> str:
    """Scripts carrying ``nonce`` only; no plugins, and no ``<base>`` to move where the page's
    relative URLs lead."""
    return f"script-src 'nonce-{nonce}'; object-src 'none'; base-uri 'none'"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    #: The pages are UTF-8 but say no charset; unlabelled, Chromium read unicode-test's
    #: 'ÖK' as 'Ã–K' in both the instruction and the page, and a model saw the mojibake.
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8"}

    def send_head(self) -> BinaryIO | None:
        """A page with a nonce on each of its script elements and the policy that names it;
        anything else as the base class serves it. Never cached: a cached page kept its old nonce."""
        path = Path(self.translate_path(self.path))
        if path.suffix != ".html" or not path.is_file():
            return super().send_head()
        nonce = secrets.token_urlsafe(18)
        body = _SCRIPT_TAG.sub(f'<script nonce="{nonce}"'.encode(), path.read_bytes())
        self.send_response(200)
        self.send_header("Content-Type", self.extensions_map[".html"])
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", content_policy(nonce))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        return io.BytesIO(body)

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
