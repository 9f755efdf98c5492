"""Text helpers shared by every edit: decoding, line splitting, keeping a file's EOL style.

Line splitting is the indexer's (``ipuaro.index.reader.split_lines``) so line numbers in edits
are the ones tools showed the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ipuaro.index.reader import content_hash, split_lines

Eol = Literal["\n", "\r\n", "\r"]
_TERMINATED = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


class TextRefused(Exception):
    """The file cannot be edited as text (not UTF-8, binary)."""


def decode_utf8(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextRefused(
            f"{path} is not valid UTF-8 (byte {exc.start}); ipuaro only edits UTF-8 text files"
        ) from None


def text_hash(text: str) -> str:
    """Hash as stored in ``FileData.hash`` for a file with exactly this text."""
    return content_hash(text.encode("utf-8"))


def split_keepends(text: str) -> list[str]:
    """Lines with their terminators: ``"".join(result) == text`` always (byte-exact undo)."""
    return _TERMINATED.findall(text)


@dataclass(frozen=True)
class Lines:
    """A file as the tools see it: lines without terminators plus how to join them back."""

    lines: list[str]
    eol: Eol
    final_newline: bool

    @classmethod
    def of(cls, text: str) -> Lines:
        lines, eol, final_newline = split_lines(text)
        return cls(lines, eol, final_newline)

    def with_lines(self, lines: list[str]) -> str:
        """Text of ``lines`` in this file's EOL style with the final newline kept as it was
        (an empty file gains one: it had no style to keep)."""
        if not lines:
            return ""
        final = self.final_newline or not self.lines
        return self.eol.join(lines) + (self.eol if final else "")


def content_lines(content: str) -> list[str]:
    """Lines of text the model sent for insertion: any EOL accepted, one trailing newline
    dropped (it terminates the last line, it does not add an empty one)."""
    if content == "":
        return []
    lines, _eol, _final = split_lines(content)
    return lines


def new_file_text(content: str) -> str:
    """A created file: the model's text with a final newline (POSIX text files end in one)."""
    if content and not content.endswith(("\n", "\r")):
        return content + "\n"
    return content
