"""What a command says back, in a form any front end can draw (a leaf: the command table and
every operation that answers a command import it; it imports nothing of the core)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ReplyKind = Literal["info", "success", "warning", "error"]


@dataclass(frozen=True)
class ReplyTable:
    title: str
    rows: tuple[tuple[str, ...], ...]
    columns: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Reply:
    """What a command says back, in a form any front end can draw."""

    text: str = ""
    kind: ReplyKind = "info"
    tables: tuple[ReplyTable, ...] = ()
    prompt: str | None = None
    """A request to send to the model next, as if the user typed it (a custom command's
    expanded template); front ends send it through ``Workspace.send``."""
    redraw: bool = False
    """The session's conversation changed (``/rewind``): a front end that shows it draws it
    again from the session, with ``text`` as its note."""
