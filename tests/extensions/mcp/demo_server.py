"""A real MCP server for the tests, written with the SDK's server side (``MCPServer``, the
FastMCP of mcp 2.x). Run as a program:

    python demo_server.py                 # stdio
    python demo_server.py --http PORT     # streamable HTTP on 127.0.0.1:PORT, path /mcp
    python demo_server.py --mute          # starts, never answers (a hung server)
    python demo_server.py --tools N       # also offers tools extra_0 … extra_{N-1}
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any


def build(extra_tools: int) -> Any:
    from mcp.server.mcpserver import MCPServer  # not imported by --mute: it starts faster

    app = MCPServer("demo")

    @app.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @app.tool()
    def whoami() -> str:
        """The server's process id and working directory."""
        return f"pid={os.getpid()} cwd={os.getcwd()}"

    @app.tool()
    def read_env(name: str) -> str:
        """One environment variable of the server process."""
        return os.environ.get(name, "<unset>")

    @app.tool()
    def shout(text: str, times: int = 1) -> str:
        """The text in capitals, repeated."""
        return (text.upper() + "\n") * times

    @app.tool()
    def touch(path: str) -> str:
        """Create a file: ``ok``, or the error that stopped it."""
        try:
            with open(path, "w") as handle:
                handle.write("x")
        except OSError as error:
            return f"error: {error.strerror}"
        return "ok"

    @app.tool()
    def crash() -> str:
        """Exit the server process at once."""
        sys.stderr.write("demo: crashing on request\n")
        sys.stderr.flush()
        os._exit(3)

    @app.tool()
    def stall(seconds: float = 1000.0) -> str:
        """Never answer (sleeps)."""
        time.sleep(seconds)
        return "woke up"

    @app.resource("notes://readme", description="the demo's readme")
    def readme() -> str:
        return "The demo server's readme: resources are readable."

    for index in range(extra_tools):
        app.add_tool(
            lambda index=index: f"extra {index}",
            name=f"extra_{index}",
            description=f"Extra tool number {index}.",
        )
    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument("--mute", action="store_true")
    parser.add_argument("--tools", type=int, default=0)
    options = parser.parse_args()
    if options.mute:
        sys.stdin.read()  # reads the handshake and never answers
        return
    app = build(options.tools)
    if options.http:
        app.run("streamable-http", host="127.0.0.1", port=options.http)
    else:
        app.run()


if __name__ == "__main__":
    main()
