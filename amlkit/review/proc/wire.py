"""The fork server's wire format, spoken by both sides (the parent's: amlkit.review.proc.warm and
amlkit.review.proc.workers; the children's: amlkit.review.children.fork_server and amlkit.review.children.worker):
a length-prefixed JSON message per request or reply over an AF_UNIX socket, the child's stdio and status pipe
travelling as file descriptors (SCM_RIGHTS).
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

__all__ = ["PR_SET_PDEATHSIG", "receive", "send"]

PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies
_HEADER = struct.Struct("!I")
_MAX_FDS = 8


def send(sock: socket.socket, message: dict[str, Any], fds: list[int]) -> None:
    """One message (JSON, length-prefixed), with file descriptors attached to its first bytes (SCM_RIGHTS)."""
    data = json.dumps(message).encode()
    frame = _HEADER.pack(len(data)) + data
    sent = socket.send_fds(sock, [frame[:65536]], fds) if fds else sock.send(frame[:65536])
    sock.sendall(frame[sent:])


def receive(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """One message and the file descriptors that came with it; EOFError when the other side is gone."""
    data, fds, _, _ = socket.recv_fds(sock, 65536, _MAX_FDS)
    if not data:
        raise EOFError("")
    while len(data) < _HEADER.size:
        data += _recv_some(sock)
    (size,) = _HEADER.unpack(data[:_HEADER.size])
    body = data[_HEADER.size:]
    while len(body) < size:
        body += _recv_some(sock)
    return json.loads(body), list(fds)


def _recv_some(sock: socket.socket) -> bytes:
    chunk = sock.recv(65536)
    if not chunk:
        raise EOFError("")
    return chunk
