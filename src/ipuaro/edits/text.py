"""Text helpers shared by every edit: decoding, line splitting, keeping a file's EOL style.

Line splitting is the indexer's (``ipuaro.index.scan.reader.split_lines``) so line numbers in edits
are the ones tools showed the model; each line's own terminator is kept so an edit changes only
the bytes of the lines it touches.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Literal

from ipuaro.domain.errors import IpuaroError
from ipuaro.index.scan.reader import content_hash, split_lines

Eol = Literal["\n", "\r\n", "\r"]
_TERMINATED = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


class TextRefused(IpuaroError):
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
    """A file as the tools see it: lines without terminators plus how to join them back.

    Lines are split where the indexer splits them (``\r\n``, ``\n`` and a lone ``\r``), so
    line numbers match what ``get_lines`` showed the model. ``ends`` keeps each line's own
    terminator: an edit re-joins untouched lines with the bytes they had (a lone ``\r`` inside a
    string literal, a stray CRLF in an LF file), and only new lines get the dominant ``eol``.
    """

    lines: list[str]
    eol: Eol
    """The file's dominant terminator (the first one found wins a tie); used for new lines."""
    final_newline: bool
    ends: list[str] = field(default_factory=list)
    """The terminator of each line ("" for a last line without one); same length as lines."""

    @classmethod
    def of(cls, text: str) -> Lines:
        lines, _first_eol, final_newline = split_lines(text)
        pieces = split_keepends(text)
        ends = [piece[len(line) :] for piece, line in zip(pieces, lines, strict=True)]
        return cls(lines, _dominant(ends), final_newline, ends)

    def with_lines(self, lines: list[str]) -> str:
        """Text of ``lines``: lines kept from this file keep their own terminators, new and
        rewritten lines take the dominant EOL, and the final newline stays as it was (an
        empty file gains one: it had no style to keep)."""
        if not lines:
            return ""
        ends = self._ends_for(lines)
        for index in range(len(ends) - 1):
            if not ends[index]:  # the old last line without a terminator is no longer last
                ends[index] = self.eol
        if not self.lines or self.final_newline:
            ends[-1] = ends[-1] or self.eol
        else:
            ends[-1] = ""
        return "".join(line + end for line, end in zip(lines, ends, strict=True))

    def _ends_for(self, new: list[str]) -> list[str]:
        """A terminator for each of ``new``: a line matched to an unchanged old line keeps
        its end; a line rewritten in place inherits the end of the line it replaces."""
        old = self.lines
        old_ends = self.ends if len(self.ends) == len(old) else [self.eol] * len(old)
        # The common prefix and suffix first: an edit is usually one splice, and matching
        # them by position keeps duplicate lines (blank lines, braces) paired with themselves.
        shortest = min(len(old), len(new))
        head = 0
        while head < shortest and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < shortest - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        old_mid = old[head : len(old) - tail]
        new_mid = new[head : len(new) - tail]
        mid_ends = old_ends[head : len(old) - tail]
        ends = list(old_ends[:head])
        matcher = difflib.SequenceMatcher(a=old_mid, b=new_mid, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                ends.extend(mid_ends[i1:i2])
            elif tag == "replace":
                ends.extend(mid_ends[i1 + k] if k < i2 - i1 else self.eol for k in range(j2 - j1))
            elif tag == "insert":
                ends.extend([self.eol] * (j2 - j1))
        ends.extend(old_ends[len(old) - tail :])
        return ends


def _dominant(ends: list[str]) -> Eol:
    counts: dict[str, int] = {}
    for end in ends:
        if end:
            counts[end] = counts.get(end, 0) + 1
    if not counts:
        return "\n"
    best = max(counts.values())
    winner = next(end for end in counts if counts[end] == best)  # dicts keep first-seen order
    return "\r\n" if winner == "\r\n" else ("\r" if winner == "\r" else "\n")


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
