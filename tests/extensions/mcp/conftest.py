"""Fixtures for the MCP client: the demo server (``demo_server.py``, the SDK's own server side)
as a real subprocess over stdio or streamable HTTP on loopback, and a real project and stub
model server from the core's fixtures."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any

from tests.agent.conftest import project  # noqa: F401  (the real project fixture)
from tests.core.conftest import server  # noqa: F401  (the real stub model server)

DEMO = Path(__file__).with_name("demo_server.py")


def demo_stdio(*args: str, **extra: Any) -> dict[str, Any]:
    """A ``mcp.servers`` entry that starts the demo server over stdio."""
    return {"command": sys.executable, "args": [str(DEMO), *args], **extra}


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is dead for our purpose.
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split(")")[-1].split()[0] == "Z")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
