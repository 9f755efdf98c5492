"""A real terminal: a tmux server of its own (``-L`` socket) with one session, ``ipuaro``."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

import pytest


class Tmux:
    def __init__(self, socket_name: str) -> None:
        self.socket = socket_name

    def run(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        return result.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "ipuaro")

    def wait_for(
        self, check: Callable[[str], bool], what: str, timeout: float = 60, poll: float = 0.05
    ) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(poll)
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "ipuaro", *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "ipuaro", "-l", text)

    def wait_for_exit(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while "ipuaro" in self.run("list-sessions", "-F", "#{session_name}"):
            if time.monotonic() > deadline:
                pytest.fail(self.screen())
            time.sleep(0.1)
