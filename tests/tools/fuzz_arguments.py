"""Hypothesis strategies for tool-call arguments as a confused model or user might send them:
every tool's own argument names and the usual aliases, with hostile values (lone surrogates,
path segments longer than a file system allows, deep nesting, huge numbers, NUL bytes)."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import strategies as st

from ipuaro.tools.arguments import PATH_ALIASES
from ipuaro.tools.registry import ToolRegistry

EXAMPLES = int(os.environ.get("IPUARO_FUZZ_EXAMPLES", "120"))
"""Generated argument objects per tool family (the report's figures: IPUARO_FUZZ_EXAMPLES=1000)."""

FAMILIES: dict[str, tuple[str, ...]] = {
    "read": ("get_lines", "get_function", "get_class", "get_structure"),
    "search": ("grep_search", "find_files", "find_references", "find_definition"),
    "analysis": ("get_dependencies", "get_dependents", "get_complexity", "get_todos"),
    "edit": ("edit_lines", "replace", "create_file", "delete_file", "edit_file"),
    "git": ("git_status", "git_diff", "git_commit"),
    "run": ("run_command", "run_tests"),
}

SPECIALS = (
    "\ud800",
    "src/\udcff.ts",
    "a\udfffb",
    "x" * 300,
    "src/" + "n" * 4000 + ".ts",
    "é" * 200,
    "src/app.ts",
    "src/../../../etc/passwd",
    "/etc/passwd",
    "~/.ssh/id_rsa",
    ".env",
    "a\x00b",
    "(((((",
    "[",
    "**/*",
    "*" * 500,
    "",
    " ",
    "\n",
    "-rf /",
    "0",
    "-1",
    "99999999999999999999999",
)

_text = st.one_of(
    st.text(max_size=12),
    st.sampled_from(SPECIALS),
    st.builds(lambda a, b: a + b, st.text(max_size=6), st.sampled_from(SPECIALS)),
)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    _text,
)


def nested(depth: int) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value]
    return value


_values = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_text, children, max_size=3),
    max_leaves=6,
)


class Deep:
    """A value nested ``depth`` lists deep, built only when used (hypothesis would recurse
    printing it)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth

    def __repr__(self) -> str:
        return f"Deep({self.depth})"


def materialise(arguments: dict[Any, Any]) -> dict[Any, Any]:
    return {k: nested(v.depth) if isinstance(v, Deep) else v for k, v in arguments.items()}


_any_value = st.one_of(_values, st.integers(min_value=50, max_value=3000).map(Deep))


def field_names(tool_name: str) -> list[str]:
    tool = ToolRegistry.default().get(tool_name)
    assert tool is not None
    return sorted(tool.args_model.model_fields) + list(PATH_ALIASES[:4])


def arguments_for(tool_name: str) -> st.SearchStrategy[dict[str, Any]]:
    keys = st.one_of(st.sampled_from(field_names(tool_name)), _text)
    return st.dictionaries(keys, _any_value, max_size=4)


def calls(family: str) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    return st.sampled_from(FAMILIES[family]).flatmap(
        lambda name: st.tuples(st.just(name), arguments_for(name))
    )


def named_in(error: str, tool: str, arguments: dict[str, Any]) -> bool:
    """Whether an error names what is wrong: the tool, or one of the arguments sent (by name
    or by value), or the argument the tool expected."""
    lowered = error.lower()
    if tool in error or any(field in error for field in field_names(tool)):
        return True
    for key, value in arguments.items():
        if isinstance(key, str) and key and key in error:
            return True
        if isinstance(value, str) and value.strip() and value.strip()[:20] in error:
            return True
    return "argument" in lowered or "path" in lowered
