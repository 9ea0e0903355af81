"""A scripted chat-completions server on 127.0.0.1, for testing HTTP backends without a real LLM.

No LLM service is reachable from CI, so tests point ``OPENAI_BASE_URL`` at this server and
script what each request gets: a reply, a 429 with Retry-After, a 5xx, a slow answer, a body
that is not JSON, a context-length 400, a dropped connection. Requests are recorded so tests
can count attempts. Usage::

    with ChatServer([rate_limited("1"), reply("hi")]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        ...
        assert len(server.requests) == 2

When the script runs out, every further request gets ``server.default`` (a plain reply).
An endpoint that is down is a port nobody listens on (:func:`free_port`); ``ChatServer(port=...)``
brings it back there.
A script entry may also be a callable taking the request's JSON body and returning a Response.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JSON = dict[str, Any]


@dataclass
class Response:
    """What the server does with one request."""

    status: int = 200
    body: JSON | str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False  # close the connection without answering


def completion(
    text: str, *, usage: bool = True, finish_reason: str = "stop", prompt_tokens: int = 42, completion_tokens: int = 7
) -> JSON:
    """A chat.completion body; ``usage=False`` leaves out the token counts, as some servers do."""
    body: JSON = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}],
    }
    if usage:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return body


def reply(text: str = "```python\nclick('button', 'OK')\n```", **kwargs: Any) -> Response:
    return Response(body=completion(text, **kwargs))


def error(status: int, message: str, *, type_: str = "error", code: str | None = None, **headers: str) -> Response:
    return Response(status=status, body={"error": {"message": message, "type": type_, "code": code}}, headers=headers)


def rate_limited(retry_after: str | None = None) -> Response:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return error(429, "Rate limit reached", type_="rate_limit_error", **headers)


def server_error(status: int = 500) -> Response:
    return error(status, "The server had an error while processing your request.", type_="server_error")


def slow(seconds: float, text: str = "late") -> Response:
    return Response(body=completion(text), delay=seconds)


def malformed() -> Response:
    return Response(body='{"choices": [ this is not json')


def context_overflow() -> Response:
    return error(
        400,
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
        type_="invalid_request_error",
        code="context_length_exceeded",
    )


def unauthorized() -> Response:
    return error(401, "Incorrect API key provided.", type_="invalid_request_error", code="invalid_api_key")


def dropped() -> Response:
    return Response(drop=True)


Script = Response | Callable[[JSON], Response]


def free_port() -> int:
    """A loopback port nobody listens on: an endpoint that is down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ChatServer:
    """Threaded HTTP server speaking ``POST /v1/chat/completions``; a context manager."""

    def __init__(self, script: Iterable[Script] = (), default: Script | None = None, port: int = 0) -> None:
        self.script: list[Script] = list(script)
        self.default: Script = default or reply()
        self.requests: list[JSON] = []
        self.headers: list[dict[str, str]] = []  # names lower-cased
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())  # port: come back where it was
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._serve, name="chat-server", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def _serve(self) -> None:
        self._httpd.serve_forever(poll_interval=0.02)  # short poll: shutdown() waits for one

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in a slow response
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next(self, body: JSON, headers: dict[str, str]) -> Response:
        with self._lock:
            self.requests.append(body)
            self.headers.append({k.lower(): v for k, v in headers.items()})
            step = self.script.pop(0) if self.script else self.default
        return step(body) if callable(step) else step

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                try:
                    self._answer()
                except OSError:
                    self.close_connection = True  # the client gave up (timeout) or we dropped it

            def _answer(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(Response(status=404, body={"error": {"message": f"no route {self.path}"}}))
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(Response(status=400, body={"error": {"message": "request body is not JSON"}}))
                    return
                response = server._next(body, dict(self.headers))
                if response.delay and server._stopping.wait(response.delay):
                    return
                if response.drop:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self._send(response)

            def _send(self, response: Response) -> None:
                payload = (response.body if isinstance(response.body, str) else json.dumps(response.body)).encode()
                self.send_response(response.status)
                for name, value in {"Content-Type": "application/json", **response.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silence per-request logging."""

        return Handler
