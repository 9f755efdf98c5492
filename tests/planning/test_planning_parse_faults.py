"""Repair messages name the real fault, and a reply holding several plans never applies its
first draft by accident."""

from __future__ import annotations

import json

import pytest

from ipuaro.planning.parse import PlanReplyError, read_plan


def plan(summary: str, path: str = "a.txt") -> dict[str, object]:
    return {
        "mode": "fix-plan",
        "summary": summary,
        "proposed_changes": {"actions": [{"kind": "CREATE_FILE", "path": path, "content": "x"}]},
    }


def test_a_draft_then_a_corrected_plan_takes_the_corrected_one_and_says_so() -> None:
    text = (
        f"Draft:\n```json\n{json.dumps(plan('draft', 'draft.txt'))}\n```\n"
        f"Wait… corrected plan:\n```json\n{json.dumps(plan('final', 'final.txt'))}\n```"
    )
    read = read_plan(text)
    assert read.plan.summary == "final"
    assert read.plan.proposed_changes.actions[0].path == "final.txt"
    assert read.notes == ("the reply held 2 plans; the last one was taken",)


def test_a_valid_draft_then_a_cut_off_correction_is_repaired_not_applied() -> None:
    corrected = json.dumps(plan("final", "final.txt"))
    draft = json.dumps(plan("draft"))
    text = f"```json\n{draft}\n```\nWait, corrected plan:\n```json\n{corrected[:60]}"
    with pytest.raises(PlanReplyError) as caught:
        read_plan(text)
    assert "another plan attempt that is not valid" in caught.value.message


def test_a_trailing_comma_is_named_with_its_line_and_column() -> None:
    text = '{\n "mode": "fix-plan",\n "summary": "x",\n}'
    with pytest.raises(PlanReplyError) as caught:
        read_plan(text)
    assert caught.value.message == "the reply is not valid JSON at line 4 col 1 (trailing comma)"


def test_a_reply_cut_off_by_the_token_limit_says_so() -> None:
    whole = json.dumps(plan("cut"), indent=1)
    with pytest.raises(PlanReplyError) as caught:
        read_plan(whole[: len(whole) // 2])
    assert caught.value.message.startswith("the reply was cut off")
    assert "kind" not in caught.value.message  # not a schema complaint about an inner object


def test_a_fenced_plan_with_single_quotes_names_the_cause() -> None:
    with pytest.raises(PlanReplyError) as caught:
        read_plan("```json\n{'mode': 'fix-plan', 'summary': 'x'}\n```")
    assert "line 1 col 2" in caught.value.message and "single quotes" in caught.value.message
