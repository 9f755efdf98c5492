"""The data of a parsed command line (words, redirections, simple commands) and the word-level
rules of bash: brace expansion, globs, ``$'...'`` decoding.

Kept apart from the lexer (:mod:`ipuaro.security.shell.shell_syntax`) so the policy can build and
read words without the parsing machinery.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from ipuaro.domain.errors import IpuaroError

__all__ = [
    "MAX_BRACE_WORDS",
    "Chars",
    "Redirect",
    "Script",
    "ShellSyntaxError",
    "SimpleCommand",
    "Word",
    "brace_expand",
    "decode_ansi_c",
    "is_glob",
]

MAX_BRACE_WORDS = 256
"""Most words one brace expansion may produce before the word is treated as a pattern."""

_ANSI_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
    "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


class ShellSyntaxError(IpuaroError, ValueError):
    """The command line cannot be parsed (unbalanced quotes, parentheses, ...)."""


@dataclass(frozen=True)
class Word:
    """One shell word: ``text`` after quote removal, expansions kept as written."""

    text: str
    raw: str
    quoted: bool = False
    dynamic: bool = False  # holds $var, ${...}, $(...), `...` or <(...): known only at run time
    glob: bool = False  # unquoted * ? [ or a {a..b} range: pathname/sequence expansion
    tilde: bool = False  # starts with an unquoted ~ (a home directory)
    chars: tuple[tuple[str, bool], ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class Redirect:
    op: str
    fd: str
    target: Word
    body: str | None = None  # text fed to stdin by a here-document or here-string


@dataclass
class SimpleCommand:
    words: list[Word]
    redirects: list[Redirect]
    source: str
    piped_stdin: bool = False
    context: str = ""  # "" at top level; "$(...)", "`...`", "<(...)", "here-document" inside


@dataclass
class Script:
    commands: list[SimpleCommand] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)


@dataclass
class Chars:
    """Characters of a word being built, each flagged quoted (inert for brace expansion)."""

    chars: list[tuple[str, bool]] = field(default_factory=list)
    quoted: bool = False
    dynamic: bool = False
    glob: bool = False

    def add(self, text: str, quoted: bool) -> None:
        self.chars.extend((c, quoted) for c in text)
        self.quoted |= quoted

    def text(self) -> str:
        return "".join(c for c, _ in self.chars)


def is_glob(chars: list[tuple[str, bool]]) -> bool:
    """Unquoted ``*``, ``?`` or a ``[...]`` class: bash expands the word to file names."""
    opened = False
    for char, quoted in chars:
        if quoted:
            continue
        if char in "*?" or (char == "]" and opened):
            return True
        opened |= char == "["
    return False


def brace_expand(word: Word) -> list[Word]:
    """bash brace expansion on unquoted ``{a,b}``; ``{1..9}`` ranges are left, flagged ``glob``."""
    chars = list(word.chars)
    if not any(c in "{}" and not q for c, q in chars):
        return [word]
    expanded = _expand_chars(chars)
    if expanded is None:  # too many words: keep it whole and let the policy refuse
        return [Word(word.text, word.raw, word.quoted, word.dynamic, True, word.tilde)]
    out = []
    for item in expanded:
        text = "".join(c for c, _ in item)
        has_range = re.search(r"\{[^{}]*\.\.[^{}]*\}", text) is not None
        tilde = bool(item) and item[0] == ("~", False)
        out.append(Word(text, word.raw, word.quoted, word.dynamic, word.glob or has_range, tilde))
    return out


def _expand_chars(chars: list[tuple[str, bool]]) -> list[list[tuple[str, bool]]] | None:
    opening = [i for i, (c, q) in enumerate(chars) if c == "{" and not q]
    for open_at in opening:
        depth, commas = 0, list[int]()
        for i in range(open_at, len(chars)):
            char, quoted = chars[i]
            if quoted:
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    if not commas:
                        break  # `{x}` or `{}`: not an expansion
                    prefix, suffix = chars[:open_at], chars[i + 1 :]
                    bounds = [open_at, *commas, i]
                    results: list[list[tuple[str, bool]]] = []
                    for left, right in itertools.pairwise(bounds):
                        inner = _expand_chars(prefix + chars[left + 1 : right] + suffix)
                        if inner is None or len(results) + len(inner) > MAX_BRACE_WORDS:
                            return None
                        results.extend(inner)
                    return results
            elif char == "," and depth == 1:
                commas.append(i)
    return [chars]


def decode_ansi_c(src: str, pos: int) -> tuple[str, int]:
    """The text of ``$'...'`` starting after ``$'`` at ``pos``, C escapes decoded
    (``$'\\x72m'`` is ``rm``), and the position after the closing quote."""
    out: list[str] = []
    while True:
        if pos >= len(src):
            raise ShellSyntaxError("unbalanced $'...' quote")
        char = src[pos]
        if char == "'":
            pos += 1
            return "".join(out), pos
        if char != "\\" or pos + 1 >= len(src):
            out.append(char)
            pos += 1
            continue
        esc = src[pos + 1]
        pos += 2
        if esc in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[esc])
        elif esc in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[esc]
            digits = re.match(rf"[0-9A-Fa-f]{{1,{width}}}", src[pos:])
            if digits:
                pos += len(digits.group(0))
                out.append(chr(min(int(digits.group(0), 16), 0x10FFFF)))
            else:
                out.append("\\" + esc)
        elif esc in "01234567":
            digits = re.match(r"[0-7]{0,2}", src[pos:])
            assert digits is not None
            pos += len(digits.group(0))
            out.append(chr(int(esc + digits.group(0), 8) & 0xFF))
        elif esc == "c" and pos < len(src):
            out.append(chr(ord(src[pos]) & 0x1F))
            pos += 1
        else:
            out.append("\\" + esc)
