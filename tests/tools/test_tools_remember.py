"""The remember tool's own part: what it hands the core (the patch, wherever a small model
put the keys) and how the core's verdict reads to the model. Checking, asking and writing are
the core's (tests/core/test_workspace_memory.py)."""

from __future__ import annotations

from typing import Any

from ipuaro.memory import PatchReport, check_patch, load_memory

from .conftest import Project


def recorder(project: Project, verdict: str) -> list[Any]:
    seen: list[Any] = []

    async def remember(patch: object, source: str) -> PatchReport:
        seen.append((patch, source))
        check = check_patch(patch, load_memory(project.root))
        if not check.changes:  # as the core: nothing to ask about
            return PatchReport(source, check)
        return PatchReport(source, check, applied=verdict == "apply", declined=verdict != "apply")

    project.ctx = project.ctx.replace(remember=remember)
    return seen


async def test_keys_beside_memory_patch_count_too(project: Project) -> None:
    seen = recorder(project, "apply")
    result = await project.call(
        "remember",
        memory_patch={"user.ask_budget": 1},
        **{"project.default_test_command": "pytest -q"},
    )
    assert result.success and "remembered 2 values" in (result.data or "")
    assert seen == [
        ({"user.ask_budget": 1, "project.default_test_command": "pytest -q"}, "remember")
    ]


async def test_a_declined_patch_is_a_refusal_and_a_bad_one_an_error(project: Project) -> None:
    recorder(project, "reject")
    declined = await project.call("remember", memory_patch={"user.ask_budget": 2})
    assert not declined.success and declined.refused
    assert "not remembered: the user declined" in (declined.error or "")
    bad = await project.call("remember", memory_patch={"user.ask_budget": 7, "shell": "zsh"})
    assert not bad.success and not bad.refused
    assert "user.ask_budget must be a whole number 0..2" in (bad.error or "")
    assert "shell: dropped (not a memory key)" in (bad.error or "")


async def test_without_a_way_to_confirm_nothing_is_remembered(project: Project) -> None:
    assert project.ctx.remember is None
    result = await project.call("remember", memory_patch={"user.ask_budget": 1})
    assert not result.success and "/memory set" in (result.error or "")
    empty = await project.call("remember")
    assert not empty.success and "give the keys to remember" in (empty.error or "")
    assert not (project.root / ".ipuaro" / "project.json").exists()


async def test_remember_is_not_offered_in_plan_mode(project: Project) -> None:
    result = await project.registry.call(
        "remember", {"memory_patch": {"user.ask_budget": 1}}, project.ctx, "t1", plan_mode=True
    )
    assert not result.success and "not available in plan mode" in (result.error or "")
