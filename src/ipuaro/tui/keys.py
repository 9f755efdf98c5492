"""No keystroke is lost: a key belongs to what was on screen when it was pressed.

Textual stamps every key with the moment it was read from the terminal (``Message.time``),
and keys queue while the app is busy. A question (a diff waiting for Y / N / E, a dialog) or a
start-up screen can take the focus while keys typed for the input still wait in that queue:
they were pressed before it appeared, so they go to the input (:data:`KeySink`). A key pressed
after it appeared is its answer at once — there is no grace period that swallows keys.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import events
from textual.message import Message

KeySink = Callable[[events.Key], Awaitable[None]]
"""Where keys typed for the input go when another widget received them (the app's
:meth:`~ipuaro.tui.app.IpuaroApp.type_ahead`)."""


def key_clock() -> float:
    """Now, on the clock Textual stamps input events with."""
    return Message().time


def pressed_before(event: events.Key, moment: float) -> bool:
    """Was ``event`` pressed before ``moment`` (a :func:`key_clock` reading)?"""
    return event.time < moment
