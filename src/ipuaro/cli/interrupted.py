"""Ctrl+C before a command has set up its own handling: while Python imports the command, while
click parses the options, while ``ipuaro run`` loads its configuration. ``ipuaro run
--output json|stream-json`` still prints its one result object (``reason: "aborted"``, exit
130) — a program reading stdout gets its answer whenever the user pressed —; everything else
says so in one line on stderr and exits 130.

Light on purpose (the heavy report module is imported only once the press has come), and a
second press while the result is written is ignored, so the object is never cut short.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ipuaro.headless_report import OutputMode

MESSAGE = "interrupted by the user (Ctrl+C)"


def interrupted(mode: str, model: str | None) -> int:
    """Report the press in ``mode`` (``ipuaro run``'s ``--output``); the exit code."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to hold off
        previous = None
    try:
        from ipuaro.headless_report import ended_before_start

        modes: dict[str, OutputMode] = {"json": "json", "stream-json": "stream-json"}
        out_mode = modes.get(mode, "text")
        return ended_before_start(MESSAGE, model, out_mode, sys.stdout, sys.stderr, "aborted")
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def interrupted_by_args(args: Sequence[str]) -> int:
    """:func:`interrupted` for a command line not parsed yet: the ``--output`` and ``--model``
    of ``ipuaro run`` read from the raw arguments."""
    if "run" not in args:
        return interrupted("text", None)
    return interrupted(_option(args, "--output") or "text", _option(args, "--model"))


def _option(args: Sequence[str], name: str) -> str | None:
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == name and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(name + "="):
            return arg[len(name) + 1 :]
    return None
