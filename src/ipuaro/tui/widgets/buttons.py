"""Buttons that show their key: ``[Y] Apply``. The label is plain text, never markup (``[Y]``
would otherwise be read as a style tag)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Button


def key_button(key: str, label: str, button_id: str) -> Button:
    return Button(Content(f"[{key.upper()}] {label}"), id=button_id, compact=True)
