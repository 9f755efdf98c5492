"""The built-in tools' stored cards: the model sees the same specs, modules load at first use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ipuaro.tools.catalog import BUILTIN_TOOLS, LazyTool, builtin_tools, startup_tools
from ipuaro.tools.registry import ToolRegistry

from .conftest import make_project


def _wire(registry: ToolRegistry, **kwargs: object) -> str:
    return json.dumps(registry.specs(**kwargs))  # type: ignore[arg-type]


def test_cards_are_written_once_then_served(tmp_path: Path) -> None:
    first = startup_tools(tmp_path)
    assert not any(isinstance(tool, LazyTool) for tool in first)  # nothing stored yet: real
    assert len(list(tmp_path.glob("*.json"))) == 1
    second = startup_tools(tmp_path)
    assert all(isinstance(tool, LazyTool) for tool in second)
    assert [tool.name for tool in second] == [tool.name for tool in builtin_tools()]
    assert not any(tool._tool for tool in second if isinstance(tool, LazyTool))


def test_the_model_sees_byte_identical_specs(tmp_path: Path) -> None:
    startup_tools(tmp_path)
    lazy = ToolRegistry(startup_tools(tmp_path))
    real = ToolRegistry(builtin_tools())
    assert _wire(lazy) == _wire(real)
    assert _wire(lazy, plan_mode=True) == _wire(real, plan_mode=True)
    assert _wire(lazy, window=8192) == _wire(real, window=8192)  # compact set + more_tools
    assert lazy.accepted_names() == real.accepted_names()
    for name in ("get_lines", "run_command", "edit_lines"):
        a, b = lazy.get(name), real.get(name)
        assert a is not None and b is not None
        assert (a.read_only, a.needs_confirmation) == (b.read_only, b.needs_confirmation)
        assert getattr(a, "path_fields", ()) == getattr(b, "path_fields", ())


@pytest.mark.parametrize(
    "damage",
    [
        "not json{",
        "[]",
        json.dumps([{"name": "get_lines"}] * len(BUILTIN_TOOLS)),
        json.dumps([{"name": 1}]),
    ],
)
def test_a_damaged_card_file_is_rebuilt(tmp_path: Path, damage: str) -> None:
    startup_tools(tmp_path)
    (stored,) = tmp_path.glob("*.json")
    stored.write_text(damage)
    tools = startup_tools(tmp_path)
    assert not any(isinstance(tool, LazyTool) for tool in tools)
    assert len(json.loads(stored.read_text())) == len(BUILTIN_TOOLS)  # written again
    assert all(isinstance(tool, LazyTool) for tool in startup_tools(tmp_path))


def test_an_unwritable_cache_location_costs_only_the_speed(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")  # a file where the folder would go: mkdir fails as for any user
    tools = startup_tools(blocker / "cards")
    assert [tool.name for tool in tools] == [tool.name for tool in builtin_tools()]


async def test_a_card_tool_runs_and_refuses_like_the_real_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path, monkeypatch)
    try:
        folder = tmp_path / "cards"
        startup_tools(folder)
        lazy = ToolRegistry(startup_tools(folder))
        real = project.registry
        ok = await lazy.call("find_files", {"pattern": "*.py"}, project.ctx, call_id="a")
        expected = await real.call("find_files", {"pattern": "*.py"}, project.ctx, call_id="a")
        assert ok.success and ok == expected
        bad = {"path": "src", "start": "first"}
        refused = await lazy.call("get_lines", bad, project.ctx, call_id="b")
        same = await real.call("get_lines", bad, project.ctx, call_id="b")
        assert not refused.success and refused.error == same.error
        plan = await lazy.call("edit_lines", {}, project.ctx, call_id="c", plan_mode=True)
        assert not plan.success and "not available in plan mode" in (plan.error or "")
    finally:
        project.store.close()


def test_a_start_from_cards_imports_no_tool_module(tmp_path: Path) -> None:
    """In a fresh process, as at ``ipuaro run`` start: the specs come without the modules."""
    code = (
        "import sys, json\n"
        "from pathlib import Path\n"
        "from ipuaro.tools.catalog import startup_tools\n"
        "from ipuaro.tools.registry import ToolRegistry\n"
        "registry = ToolRegistry(startup_tools(Path(sys.argv[1])))\n"
        "registry.specs()\n"
        "tools = [m for m in sys.modules if m.startswith('ipuaro.tools.builtin.')]\n"
        "print(json.dumps(sorted(tools)))\n"
    )

    def loaded() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path)],
            capture_output=True,
            text=True,
            check=True,
        )
        return list(json.loads(done.stdout))

    assert len(loaded()) == len(BUILTIN_TOOLS)  # the first start builds the cards
    assert loaded() == []
