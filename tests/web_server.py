"""A real ``kakuro serve`` server for the web tests: uvicorn in a thread on a free local port.

Tests import it as ``from web_server import ...`` (pytest puts tests/ on sys.path), after they have
skipped themselves where uvicorn is missing.
"""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

__all__ = ["free_port", "running_server"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(app, start_timeout: float = 20) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a daemon thread, as ``kakuro serve`` runs it; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
