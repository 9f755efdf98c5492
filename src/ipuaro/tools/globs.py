"""Glob patterns as models write them: ``*.ts``, ``src/**/*.py``, ``*.{ts,tsx}``, ``a, b``.

gitignore semantics (``pathspec``): a pattern without ``/`` matches a name in any folder.
"""

from __future__ import annotations

import re

import pathspec

from ipuaro.tools.base import ToolError

_BRACES = re.compile(r"\{([^{}]*)\}")


def expand_braces(pattern: str) -> list[str]:
    match = _BRACES.search(pattern)
    if match is None:
        return [pattern]
    out: list[str] = []
    for option in match.group(1).split(","):
        out += expand_braces(pattern[: match.start()] + option + pattern[match.end() :])
    return out


def split_patterns(patterns: str) -> list[str]:
    """Split at commas and spaces that are not inside ``{...}``."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in patterns:
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        if depth == 0 and (char == "," or char.isspace()):
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def compile_globs(patterns: str) -> pathspec.GitIgnoreSpec:
    """A matcher for a comma/space separated list of globs."""
    parts = split_patterns(patterns)
    expanded = [e.removeprefix("./") for p in parts for e in expand_braces(p)]
    try:
        return pathspec.GitIgnoreSpec.from_lines(expanded)
    except (re.error, ValueError):  # pathspec's own pattern errors are ValueErrors
        pass
    for pattern in expanded:  # name the bad one, in glob terms, not pathspec's regex
        try:
            pathspec.GitIgnoreSpec.from_lines([pattern])
        except re.error as error:
            raise ToolError(f"glob {pattern!r} is not valid ({error.msg}); fix it") from None
        except ValueError as error:
            raise ToolError(f"glob {pattern!r} is not valid ({error}); fix it") from None
    raise ToolError(f"glob {patterns!r} is not valid; fix it")


def has_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[{")
