"""Replay every apply golden (tests/golden/apply/*.json) through the real plan parser and the
real apply checks; a changed check or message fails with both versions shown (re-record with
scripts/record-golden-apply after reviewing the change)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ipuaro.planning.actions import ERROR_CODES
from tests.golden.apply.cases import CASES
from tests.golden.apply.harness import APPLY_GOLDEN_DIR, APPLY_GOLDEN_VERSION, case_of, play

FILES = sorted(APPLY_GOLDEN_DIR.glob("*.json"))
NOT_FROM_A_REPLY = {
    "ERR_NO_PLAN": "said by the workspace when no plan is stored (tests/core/test_plan_apply.py)",
    "ERR_CONTENT_TOO_LARGE": "needs 5 MB of content; tests/planning/test_actions.py has it",
    "ERR_FILE_TOO_LARGE": "needs 1 MB of content; tests/planning/test_actions.py has it",
    "ERR_PATH_EMPTY": "the schema refuses an empty path first (golden err_path_empty)",
    "ERR_UNKNOWN_KIND": "the schema refuses an unknown kind first (golden err_unknown_kind)",
    "ERR_CONTENT_MISSING": "the parser asks for content first (golden err_content_missing)",
}


def test_every_case_has_a_recording() -> None:
    assert {p.stem for p in FILES} == {case["name"] for case in CASES}


def test_every_error_code_has_a_golden_or_a_reason() -> None:
    recorded: set[str] = set()
    for path in FILES:
        recorded |= set(json.loads(path.read_text("utf-8"))["expected"].get("codes", []))
    assert recorded | set(NOT_FROM_A_REPLY) == set(ERROR_CODES)
    assert not recorded & set(NOT_FROM_A_REPLY) - {"ERR_PATH_EMPTY"}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_apply_golden_replays_identically(path: Path, tmp_path: Path) -> None:
    document: dict[str, Any] = json.loads(path.read_text("utf-8"))
    assert document["goldenVersion"] == APPLY_GOLDEN_VERSION
    recording = play(case_of(document), tmp_path)
    if recording != document["expected"]:
        pytest.fail(
            f"{path.name} no longer matches (intended? re-record: scripts/record-golden-apply "
            f"{path.stem}):\nexpected {json.dumps(document['expected'], indent=1)}\n"
            f"got {json.dumps(recording, indent=1)}",
            pytrace=False,
        )
