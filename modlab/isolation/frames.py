"""Frames between the grading process and the zygote: JSON on a Unix socket.

A frame may carry file descriptors (the ends of a new worker's sockets).
Nothing here imports torch, so a process can start its zygote, which loads
torch, before it loads torch itself (a student's check does both at once).
"""
from __future__ import annotations

import json
import socket
import struct

MAX_FRAME = 1 << 20


class ProtocolError(Exception):
    """A frame, or a worker's answer (:mod:`.protocol`), that is not well-formed."""


def send_frame(sock: socket.socket, message: dict, fds: tuple[int, ...] = ()) -> None:
    """Send one JSON message, and with it ``fds`` (passed as SCM_RIGHTS)."""
    body = json.dumps(message).encode()
    frame = struct.pack("!I", len(body)) + body
    sent = socket.send_fds(sock, [frame], list(fds)) if fds else sock.send(frame)
    if sent < len(frame):
        sock.sendall(frame[sent:])


def receive_frame(sock: socket.socket, max_fds: int = 0) -> tuple[dict | None, list[int]]:
    """One message and the descriptors that came with it; ``(None, [])`` at EOF."""
    head, fds = b"", []
    while len(head) < 4:
        if max_fds:
            chunk, more, _, _ = socket.recv_fds(sock, 4 - len(head), max_fds)
            fds += more
        else:
            chunk = sock.recv(4 - len(head))
        if not chunk:
            for fd in fds:
                socket.close(fd)
            return None, []
        head += chunk
    (size,) = struct.unpack("!I", head)
    if size > MAX_FRAME:
        raise ProtocolError(f"frame of {size} bytes")
    body = b""
    while len(body) < size:
        chunk = sock.recv(size - len(body))
        if not chunk:
            raise ProtocolError("frame cut short")
        body += chunk
    return json.loads(body), fds
