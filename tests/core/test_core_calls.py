"""Tool calls described for front ends that list them by kind and location."""

from __future__ import annotations

from typing import Any

import pytest

from ipuaro.core.calls import describe_call
from ipuaro.domain import ToolCall
from ipuaro.tools.registry import ToolRegistry


@pytest.mark.parametrize(
    ("name", "arguments", "kind", "paths"),
    [
        ("get_lines", {"file_path": "shop/cart.py", "start": 1}, "read", ("shop/cart.py",)),
        ("grep_search", {"pattern": "Cart"}, "search", ()),
        ("replace", {"target_file": "a.py", "old": "x", "new": "y"}, "edit", ("a.py",)),
        ("create_file", {"path": "n.md", "content": ""}, "edit", ("n.md",)),
        ("delete_file", {"path": "old.py"}, "delete", ("old.py",)),
        ("run_command", {"command": "ls"}, "execute", ()),
        ("no_such_tool", {"path": "x"}, "other", ()),
    ],
)
def test_kind_and_paths(
    name: str, arguments: dict[str, Any], kind: str, paths: tuple[str, ...]
) -> None:
    facts = describe_call(ToolRegistry.default(), ToolCall(id="1", name=name, parameters=arguments))
    assert (facts.kind, facts.paths) == (kind, paths)


def test_every_registered_tool_has_a_known_kind() -> None:
    registry = ToolRegistry.default()
    for spec in registry.specs():
        name = spec["function"]["name"] if "function" in spec else spec["name"]
        assert describe_call(registry, ToolCall(id="1", name=name)).kind != "other", name
