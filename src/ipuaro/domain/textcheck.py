"""Parsed JSON from outside (an ACP line, an imported session) checked before anything keeps it.

Python's JSON parser accepts two things nothing downstream can handle: a lone UTF-16 surrogate
escape (``"\\ud800"`` parses to a ``str`` that cannot be encoded as UTF-8, so the first save or
send of the session holding it fails, and every one after) and nesting as deep as the parser's
recursion allows (which later recursive code — pydantic, ``json.dumps`` — may not). The walk is
iterative, so a value as deep as the parser allows cannot exhaust the stack here.
"""

from __future__ import annotations

from typing import Any

Where = tuple[str | int, ...]


def unicode_problem(text: str) -> str | None:
    """Why ``text`` is not valid Unicode (naming the first unpaired surrogate), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return (
            f"holds an unpaired UTF-16 surrogate ({text[error.start]!r} at character "
            f"{error.start}), which is not valid Unicode; send UTF-8 text"
        )
    return None


def describe(where: Where) -> str:
    """``("params", "prompt", 0, "text")`` → ``params.prompt[0].text``."""
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "the value"


def value_problem(value: Any, max_depth: int, where: Where = ()) -> str | None:
    """What makes ``value`` unfit to keep (too deep, or text that is not valid Unicode, in a
    value or a key), naming where; None when fit."""
    pending: list[tuple[Any, Where]] = [(value, where)]
    while pending:
        item, at = pending.pop()
        if len(at) - len(where) > max_depth:
            return f"{describe(at)} nests lists or objects deeper than {max_depth} levels"
        if isinstance(item, str):
            problem = unicode_problem(item)
            if problem is not None:
                return f"{describe(at)} {problem}"
        elif isinstance(item, dict):
            for key, child in item.items():
                problem = unicode_problem(str(key))
                if problem is not None:
                    return f"a key in {describe(at)} {problem}"
                pending.append((child, (*at, str(key))))
        elif isinstance(item, list):
            pending.extend((child, (*at, index)) for index, child in enumerate(item))
    return None
