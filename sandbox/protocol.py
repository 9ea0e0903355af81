"""Length-prefixed JSON frames over a socket, and the one definition of "plain data".

JSON (never pickle) is the wire format because whatever the child sends is hostile: decoding
JSON can only ever produce dicts, lists, strings, numbers, booleans and None, so no object of
the child's choosing can come to life in the host. The size cap is checked before a byte of
the body is read.
"""

from __future__ import annotations

import json
import math
import socket
import struct
from typing import Any

_HEADER = struct.Struct(">I")
MAX_DEPTH = 32
CHANNEL_BROKEN = 71  # exit status of a child whose action round trip failed (sandbox.worker)
RESULT_UNSENT = 72  # exit status of a child that could not send its result (sandbox.worker)


class ProtocolError(Exception):
    """The peer broke the framing, sent invalid JSON or exceeded the size cap."""


class NotPlainData(TypeError):
    """A value that is not None/bool/int/float/str or a list/tuple/dict of them."""


def check_plain(value: Any, *, depth: int = 0) -> None:
    """Accept exact built-in types only: a ``str`` subclass could carry a lying ``__eq__``."""
    if depth > MAX_DEPTH:
        raise NotPlainData(f"data nested deeper than {MAX_DEPTH} levels")
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return
    if kind is float:
        if not math.isfinite(value):
            raise NotPlainData("non-finite float")
        return
    if kind in (list, tuple):
        for item in value:
            check_plain(item, depth=depth + 1)
        return
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise NotPlainData(f"dict key of type {type(key).__name__}")
            check_plain(item, depth=depth + 1)
        return
    raise NotPlainData(f"value of type {kind.__name__}")


def encode(message: dict[str, Any], *, limit: int | None = None) -> bytes:
    """One frame; raises NotPlainData or ProtocolError instead of sending something unsafe."""
    check_plain(message)
    body = json.dumps(message, allow_nan=False, separators=(",", ":")).encode("utf-8")
    if limit is not None and len(body) > limit:
        raise ProtocolError(f"message of {len(body)} bytes exceeds the {limit} byte limit")
    return _HEADER.pack(len(body)) + body


def send(sock: socket.socket, message: dict[str, Any], *, limit: int | None = None) -> None:
    sock.sendall(encode(message, limit=limit))


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise EOFError("peer closed the channel")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def decode_body(body: bytes) -> dict[str, Any]:
    def reject_constant(name: str) -> None:
        raise ProtocolError(f"non-finite number {name}")

    try:
        message = json.loads(body.decode("utf-8"), parse_constant=reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"malformed message: {type(exc).__name__}") from None
    if type(message) is not dict:
        raise ProtocolError("message is not a JSON object")
    return message


def recv(sock: socket.socket, *, limit: int | None = None) -> dict[str, Any]:
    """Read one frame; EOFError when the peer is gone."""
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    if limit is not None and size > limit:
        raise ProtocolError(f"message of {size} bytes exceeds the {limit} byte limit")
    return decode_body(_recv_exact(sock, size))


def send_with_fd(sock: socket.socket, message: dict[str, Any], fd: int) -> None:
    """Send a frame with a descriptor attached to its first bytes (SCM_RIGHTS)."""
    frame = encode(message)
    socket.send_fds(sock, [frame[: _HEADER.size]], [fd])
    sock.sendall(frame[_HEADER.size :])


def recv_with_fd(sock: socket.socket) -> tuple[dict[str, Any], int | None]:
    """Read one frame and the descriptor sent with it, if any."""
    header, fds, _flags, _addr = socket.recv_fds(sock, _HEADER.size, 1)
    if not header:
        raise EOFError("peer closed the channel")
    header += _recv_exact(sock, _HEADER.size - len(header))
    (size,) = _HEADER.unpack(header)
    return decode_body(_recv_exact(sock, size)), (fds[0] if fds else None)
