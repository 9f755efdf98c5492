"""What may be written into a file: UTF-8 text, no NUL, not pseudo-binary; EOL style preserved.

Files keep their own line endings and final-newline state: a tool splits the old text with
:func:`split_lines`, edits lines, and joins with :func:`apply_eol` (or :func:`conform_to` for a
whole new text the model wrote with ``\\n``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from ipuaro.domain.errors import IpuaroError

__all__ = [
    "MAX_NON_PRINTABLE_RATIO",
    "ContentRefused",
    "apply_eol",
    "check_text",
    "conform_to",
    "decode_text",
    "detect_eol",
    "split_lines",
]

Eol = Literal["\n", "\r\n", "\r"]

MAX_NON_PRINTABLE_RATIO = 0.10
"""More non-printable characters than this fraction means binary data posing as text."""

# Whitespace controls that ordinary text files use.
_TEXT_CONTROLS = frozenset("\t\n\r\f\v")
_LINE_BREAK = re.compile(r"\r\n|\n|\r")


class ContentRefused(IpuaroError):
    """Text that may not be written; ``reason`` names the file, the problem and the fix."""

    def __init__(self, path: str, why: str) -> None:
        self.path = path
        self.why = why
        self.reason = f"content for {path or 'the file'} refused: {why}"
        super().__init__(self.reason)


_NON_PRINTABLE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffd]")
"""What :func:`_is_non_printable` is true for (Cc is U+0000–001F and U+007F–009F, Cs is
U+D800–DFFF), as one pattern: counted in C, not one Python call per character (a 10 MB file was
9 of the 10 seconds of an edit)."""


def count_non_printable(text: str) -> int:
    return len(text) - len(_NON_PRINTABLE.sub("", text))


def _is_non_printable(char: str) -> bool:
    if char in _TEXT_CONTROLS:
        return False
    # Cc: C0/C1 controls; Cs: lone surrogates; U+FFFD: bytes that failed to decode somewhere.
    return unicodedata.category(char) in ("Cc", "Cs") or char == "\ufffd"


def check_text(text: str, path: str = "") -> None:
    """Refuse NUL bytes, lone surrogates (not encodable as UTF-8) and > 10 % non-printable."""
    if not isinstance(text, str):
        raise ContentRefused(path, f"expected text (str), got {type(text).__name__}")
    nul = text.find("\x00")
    if nul >= 0:
        raise ContentRefused(path, f"it contains a NUL byte (at character {nul}); binary data")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ContentRefused(
            path, f"it is not valid UTF-8 (lone surrogate at character {error.start})"
        ) from None
    if not text:
        return
    bad = count_non_printable(text)
    if bad / len(text) > MAX_NON_PRINTABLE_RATIO:
        raise ContentRefused(
            path,
            f"{bad} of {len(text)} characters ({bad / len(text):.0%}) are non-printable "
            f"(limit {MAX_NON_PRINTABLE_RATIO:.0%}); this looks like binary data",
        )


def decode_text(data: bytes, path: str = "") -> str:
    """Decode file bytes as strict UTF-8 and apply :func:`check_text`."""
    if b"\x00" in data:
        raise ContentRefused(path, f"it contains a NUL byte (at byte {data.index(0)}); binary")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ContentRefused(
            path, f"it is not UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from None
    check_text(text, path)
    return text


def detect_eol(text: str) -> Eol:
    """The most common line ending; ``\\n`` when there is none (ties prefer ``\\n``, then CRLF)."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if crlf == lf == cr == 0:
        return "\n"
    best = max(lf, crlf, cr)
    if lf == best:
        return "\n"
    return "\r\n" if crlf == best else "\r"


def split_lines(text: str) -> tuple[list[str], Eol, bool]:
    """Lines without terminators, the file's EOL and whether it ends with a line break."""
    if text == "":
        return [], "\n", False
    eol = detect_eol(text)
    final_newline = text.endswith(("\n", "\r"))
    lines = _LINE_BREAK.split(text)
    if final_newline:
        lines.pop()  # the empty string after the last terminator is not a line
    return lines, eol, final_newline


def apply_eol(lines: list[str], eol: str, final_newline: bool) -> str:
    """Join ``lines`` with ``eol``, ending with ``eol`` when ``final_newline`` and lines exist."""
    if eol not in ("\n", "\r\n", "\r"):
        raise ValueError(f"eol must be '\\n', '\\r\\n' or '\\r', got {eol!r}")
    if not lines:
        return ""
    return eol.join(lines) + (eol if final_newline else "")


def conform_to(new_text: str, original: str) -> str:
    """``new_text`` re-joined with ``original``'s EOL and final-newline state.

    A new (empty) file keeps ``new_text``'s own style.
    """
    if original == "":
        return new_text
    lines, _, _ = split_lines(new_text)
    _, eol, final_newline = split_lines(original)
    return apply_eol(lines, eol, final_newline)
