"""Replay every plan-mode golden trace through the real workspace, plan flow, reader,
validator and context diet; a change to the contract or the prompts fails with a readable diff
(re-record with scripts/record-golden)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ipuaro.trace.replay import GOLDEN_VERSION, diff
from tests.golden.plan_harness import PLAN_GOLDEN_DIR, PLAN_INPUT_KEYS, play_plan
from tests.golden.plan_scenarios import PLAN_SCENARIOS

FILES = sorted(PLAN_GOLDEN_DIR.glob("*.json"))


def test_every_plan_scenario_has_a_recording() -> None:
    assert {p.stem for p in FILES} == {s["name"] for s in PLAN_SCENARIOS}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
async def test_plan_golden_trace_replays_identically(path: Path, tmp_path: Path) -> None:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert document["goldenVersion"] == GOLDEN_VERSION
    scenario = {key: document[key] for key in PLAN_INPUT_KEYS}
    recording = await play_plan(scenario, tmp_path)
    problem = diff(document["expected"], recording, path.name)
    if problem:
        pytest.fail(
            f"{path.name} no longer matches (intended? re-record: scripts/record-golden "
            f"{path.stem}):\n{problem}",
            pytrace=False,
        )


def test_the_recordings_cover_what_the_contract_promises() -> None:
    """Not a replay: a check that the recorded outcomes are the ones each scenario is for."""
    outcomes = {}
    for path in FILES:
        events = json.loads(path.read_text(encoding="utf-8"))["expected"]["events"]
        end = events[-1]
        rounds = [e["number"] for e in events if e["type"] == "plan_context_round"]
        outcomes[path.stem] = (end["reason"], rounds)
    assert outcomes["plan_valid_ollama"] == ("done", [1])  # reads the file it updates
    assert outcomes["plan_two_context_rounds"] == ("done", [1, 2])
    assert outcomes["plan_invalid_twice"][0] == "error"
    two = json.loads((PLAN_GOLDEN_DIR / "plan_two_context_rounds.json").read_text())
    cuts = [c for e in two["expected"]["events"] for c in e.get("cuts", [])]
    assert any("shop/big_rules.py: cut to its first and last lines" in c for c in cuts)
