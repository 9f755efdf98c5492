"""Ctrl+C for a front end without a screen (``ipuaro run``): the first press stops the running
request the way the TUI's Esc does — it ends ``aborted`` and the run still reports (one JSON
object with ``--output json``) —; a press with no request running, or a second one, cancels
the run's task, which the front end turns into the same ``aborted`` report.

Installed on the running loop (``loop.add_signal_handler``), so the handler runs between two
steps of the loop, never inside one; outside the main thread it is not installed at all.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Protocol


class Abortable(Protocol):
    """What a press stops: the workspace's running request."""

    def abort(self) -> None: ...


class CtrlC:
    """``with CtrlC() as ctrl_c:`` around a run; ``ctrl_c.request(workspace)`` while a request
    runs. ``pressed`` says whether the user interrupted."""

    def __init__(self) -> None:
        self.pressed = 0
        self._task: asyncio.Task[object] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._workspace: Abortable | None = None

    def __enter__(self) -> CtrlC:
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, self._on_press)
        except (RuntimeError, ValueError, NotImplementedError):
            return self  # not the main thread (or no signals here): Ctrl+C stays Python's
        self._loop, self._task = loop, asyncio.current_task()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None:
            self._loop.remove_signal_handler(signal.SIGINT)
            self._loop = None

    def request(self, workspace: Abortable | None) -> None:
        """The workspace whose request a press aborts (None: the request has ended)."""
        self._workspace = workspace

    def _on_press(self) -> None:
        self.pressed += 1
        if self.pressed == 1 and self._workspace is not None:
            self._workspace.abort()  # the request ends "aborted"; the run reports as usual
        elif self._task is not None:
            self._task.cancel()

    def settle(self) -> None:
        """After catching the cancellation a press caused: the task may await again (closing
        the workspace) without being cancelled anew."""
        if self._task is not None:
            while self._task.uncancel():
                pass
