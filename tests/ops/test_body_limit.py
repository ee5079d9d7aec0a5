"""The body cap on a real uvicorn process, over a raw socket: a declared 200 MB body is
answered 413 before a byte of it is sent, and a chunked body is answered 413 while the
client is still sending, without waiting for its end."""

from __future__ import annotations

import socket
from pathlib import Path

import orjson

from tests.tables.harness import start_servers

CAP = 64 * 1024


def _answer(sock: socket.socket) -> tuple[int, dict[str, object]]:
    sock.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        assert more, data
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        more = sock.recv(65536)
        assert more, body
        body += more
    return int(head.split(b" ")[1]), orjson.loads(body[:length])


def _request(port: int, extra: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(
        (
            f"POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\n{extra}\r\n"
        ).encode()
    )
    return sock


def test_real_process_refuses_large_bodies_before_reading_them(
    pg_url: str, ops_redis: str, var: Path
) -> None:
    [server] = start_servers(1, pg_url, ops_redis, var, max_body_bytes=CAP)
    try:
        with _request(server.port, f"Content-Length: {200 * 1024 * 1024}\r\n") as sock:
            status, body = _answer(sock)  # nothing of the body was sent
            assert status == 413
            assert body["error"]["code"] == "body_too_large"  # type: ignore[index]

        with _request(server.port, "Transfer-Encoding: chunked\r\n") as sock:
            chunk = b" " * 8192
            for _ in range(CAP // len(chunk) + 2):  # past the cap, and never a last chunk
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            status, body = _answer(sock)
            assert status == 413
            assert body["error"]["code"] == "body_too_large"  # type: ignore[index]
        assert server.alive()
    finally:
        server.stop()
