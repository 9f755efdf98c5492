"""Replay every golden trace through the real client, parser, tools and loop; a change to what
goes over the wire fails with a readable diff (re-record with scripts/record-golden)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ipuaro.trace.replay import GOLDEN_VERSION, diff
from tests.golden.harness import GOLDEN_DIR, INPUT_KEYS, play
from tests.golden.scenarios import SCENARIOS

FILES = sorted(GOLDEN_DIR.glob("*.json"))


def test_every_scenario_has_a_recording() -> None:
    assert {p.stem for p in FILES} == {s["name"] for s in SCENARIOS}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
async def test_golden_trace_replays_identically(path: Path, tmp_path: Path) -> None:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert document["goldenVersion"] == GOLDEN_VERSION
    scenario = {key: document[key] for key in INPUT_KEYS}
    recording = await play(scenario, tmp_path)
    problem = diff(document["expected"], recording, path.name)
    if problem:
        pytest.fail(
            f"{path.name} no longer matches (intended? re-record: scripts/record-golden "
            f"{path.stem}):\n{problem}",
            pytrace=False,
        )


def test_a_protocol_change_shows_as_a_readable_diff() -> None:
    document = json.loads(FILES[0].read_text(encoding="utf-8"))
    changed = json.loads(json.dumps(document["expected"]))
    changed["requests"][0]["messages"][1]["content"] = "something else"
    text = diff(document["expected"], changed, "x.json")
    assert text is not None
    assert '+          "content": "something else",' in text.splitlines()
    assert text.splitlines()[0] == "--- x.json (recorded)"
