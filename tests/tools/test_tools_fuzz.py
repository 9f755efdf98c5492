"""The agent's tool dispatch under fuzzed arguments: every call ends in a result the model can
read (no exception), the result serialises (it goes into the session), a failure names what
is wrong, and bad arguments are the model's to fix (never a file/store error for the user)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from ipuaro.agent.run.dispatch import failure_kind
from ipuaro.tools.registry import to_result

from .conftest import Project, make_project
from .fuzz_arguments import EXAMPLES, FAMILIES, calls, materialise, named_in


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    monkeypatch = pytest.MonkeyPatch()
    made = make_project(tmp_path_factory.mktemp("fuzz"), monkeypatch)
    made.ctx.grants.set_auto_apply(
        False
    )  # nobody confirms: edits and commands are refused, not made
    made.ctx = made.ctx.replace(confirm=None)
    yield made
    made.store.close()
    monkeypatch.undo()


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_dispatch_answers_every_fuzzed_call(fuzz_project: Project, family: str) -> None:
    before = {
        p: p.read_bytes()
        for p in fuzz_project.root.rglob("*")
        if p.is_file() and ".git" not in p.parts
    }

    @settings(
        max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    @given(calls(family))
    def check(call: tuple[str, dict[str, Any]]) -> None:
        name, arguments = call[0], materialise(call[1])
        outcome = asyncio.run(fuzz_project.registry.call_outcome(name, arguments, fuzz_project.ctx))
        result = to_result(outcome, "fuzz")
        result.model_dump_json()  # stored in the session: must serialise
        if not outcome.success:
            error = outcome.error or outcome.content
            assert error.strip(), f"{name} failed without saying why"
            assert named_in(error, name, arguments), f"{name}: {error!r} names nothing"
            assert failure_kind(outcome, name) is None, f"{name}: {error!r} would ask the user"

    check()
    after = {
        p: p.read_bytes()
        for p in fuzz_project.root.rglob("*")
        if p.is_file() and ".git" not in p.parts
    }
    assert after == before  # nothing was confirmed, so nothing changed
