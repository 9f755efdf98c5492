"""The plan contract's reader: extraction from prose, the older shapes, validation messages
that name the JSON path, and the schema's version and hash."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ipuaro.planning.parse import (
    PlanReplyError,
    plan_from_document,
    plan_to_document,
    read_plan,
    validation_errors,
)
from ipuaro.planning.schema import PLAN_SCHEMA, SCHEMA_HASH, SCHEMA_VERSION, schema_hash

VALID: dict[str, Any] = {
    "mode": "fix-plan",
    "summary": "Fix it.",
    "questions": ["Which?"],
    "context_requests": [{"type": "read_file", "path": "a.py", "start_line": 2, "end_line": 9}],
    "plan": [{"step": "one", "details": "two"}],
    "proposed_changes": {
        "actions": [{"kind": "UPDATE_FILE", "path": "a.py", "content": "x = 1\n"}],
        "patch": "--- a/a.py\n+++ b/a.py\n",
        "commands_to_run": ["pytest -q"],
    },
    "risks": ["r"],
    "memory_patch": {"project.default_test_command": "pytest -q"},
}


def test_the_whole_contract_round_trips() -> None:
    read = read_plan(json.dumps(VALID))
    assert read.extraction == "json" and not read.legacy
    assert plan_to_document(read.plan) == VALID
    assert plan_from_document(plan_to_document(read.plan)) == read.plan


def test_schema_version_and_hash_are_stable_and_change_with_the_schema() -> None:
    assert SCHEMA_VERSION == 2 and PLAN_SCHEMA["x_schema_version"] == 2
    assert schema_hash() == SCHEMA_HASH and len(SCHEMA_HASH) == 64
    changed = json.loads(json.dumps(PLAN_SCHEMA))
    changed["properties"]["questions"]["maxItems"] = 3
    assert schema_hash(changed) != SCHEMA_HASH


@pytest.mark.parametrize(
    ("text", "how"),
    [
        ("Here you go:\n```json\n" + json.dumps(VALID) + "\n```\nBye.", "fenced"),
        ("```\n" + json.dumps(VALID) + "\n```", "fenced"),
        ("I propose " + json.dumps(VALID) + " — done.", "embedded"),
        ("Thinking {not json} then " + json.dumps(VALID), "embedded"),
    ],
)
def test_json_is_found_in_prose(text: str, how: str) -> None:
    read = read_plan(text)
    assert read.extraction == how
    assert read.plan.summary == "Fix it."


def test_older_shapes_are_normalised() -> None:
    bare = read_plan('[{"kind": "CREATE_DIR", "path": "src"}]')
    assert bare.legacy and bare.plan.mode == "fix-plan"
    assert bare.plan.proposed_changes.actions[0].kind == "CREATE_DIR"
    rooted = read_plan(
        json.dumps(
            {
                "actions": [{"kind": "CREATE_FILE", "path": "README.md", "content": "# P\n"}],
                "memory_patch": {"user.preferred_style": "brief"},
                "summary": "Created README",
            }
        )
    )
    assert rooted.legacy and rooted.plan.summary == "Created README"
    assert rooted.plan.memory_patch == {"user.preferred_style": "brief"}
    assert rooted.plan.proposed_changes.actions[0].content == "# P\n"


def test_no_changes_is_a_valid_answer() -> None:
    read = read_plan('{"mode": "apply", "summary": "NO_CHANGES: all good", "proposed_changes": {}}')
    assert read.plan.no_changes


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"summary": "x"}, "$: 'mode' is a required property"),
        ({"mode": "plan", "summary": "x"}, "$.mode: 'plan' is not one of ['fix-plan', 'apply']"),
        ({"mode": "apply", "summary": "x", "questions": ["1", "2", "3"]}, "$.questions:"),
        (
            {"mode": "apply", "summary": "x", "context_requests": [{"type": "read_file"}]},
            "$.context_requests[0]: a read_file request needs a non-empty 'path'",
        ),
        (
            {"mode": "apply", "summary": "x", "context_requests": [{"type": "search"}]},
            "$.context_requests[0]: a search request needs a non-empty 'query'",
        ),
        (
            {
                "mode": "apply",
                "summary": "x",
                "context_requests": [
                    {"type": "read_file", "path": "a", "start_line": 9, "end_line": 2}
                ],
            },
            "end_line 2 is before start_line 9",
        ),
        (
            {
                "mode": "apply",
                "summary": "x",
                "proposed_changes": {"actions": [{"kind": "UPDATE_FILE", "path": "a.py"}]},
            },
            "$.proposed_changes.actions[0]: UPDATE_FILE needs 'content'",
        ),
        (
            {"mode": "apply", "summary": "x", "proposed_changes": {"actions": [{"kind": "RM"}]}},
            "$.proposed_changes.actions[0]: 'path' must be a non-empty string",
        ),
        ("just a string", "$: the answer must be a JSON object, not str"),
        (
            {"mode": "apply", "summary": "x", "proposed_changes": {"actions": [{"kind": "RM"}]}},
            "$.proposed_changes.actions[0].kind: 'RM' is not one of ['CREATE_DIR', 'CREATE_FILE'",
        ),
    ],
)
def test_each_violation_names_its_path(document: Any, message: str) -> None:
    with pytest.raises(PlanReplyError) as caught:
        read_plan(json.dumps(document))
    assert caught.value.stage == "validate"
    assert message in caught.value.message


@pytest.mark.parametrize(
    "request_",
    [{"type": "read_file"}, {"type": "read_file", "path": ""}, {"type": "search"},
     {"type": "search", "query": ""}, {"type": "search", "path": "a.py"}],
)  # fmt: skip
def test_the_schema_alone_refuses_a_request_the_reader_refuses(request_: dict[str, Any]) -> None:
    """llama.cpp's server constrains the reply with a grammar made from the schema: a rule only
    the reader knew let SmolLM2 answer ``{"type": "read_file"}`` twice, and the plan failed."""
    document = {"mode": "fix-plan", "summary": "s", "context_requests": [request_]}
    assert validation_errors(document)
    assert not Draft202012Validator(PLAN_SCHEMA).is_valid(document)


# Valid under version 1 of the schema (stored plans hold such requests): still valid.
V1_REQUESTS: list[dict[str, Any]] = [
    {"type": "read_file", "path": "a.py"},
    {"type": "read_file", "path": "a.py", "start_line": 2, "end_line": 9, "query": "q"},
    {"type": "search", "query": "TODO"},
    {"type": "search", "query": "TODO", "glob": "*.py", "path": "src"},
    {"type": "logs"},
    {"type": "logs", "source": "app", "last_n": 5},
    {"type": "env"},
    {"type": "env", "path": "x", "query": "y"},
]


@pytest.mark.parametrize("request_", V1_REQUESTS)
def test_a_request_valid_under_version_1_stays_valid(request_: dict[str, Any]) -> None:
    document = {"mode": "fix-plan", "summary": "s", "context_requests": [request_]}
    assert validation_errors(document) == []


def test_a_mistyped_field_is_named_whatever_the_requests_type() -> None:
    document = {"mode": "fix-plan", "summary": "s",
                "context_requests": [{"type": "read_file", "path": "a.py", "glob": 5}]}  # fmt: skip
    assert validation_errors(document) == ["$.context_requests[0].glob: 5 is not of type 'string'"]


def test_no_json_at_all_says_so() -> None:
    with pytest.raises(PlanReplyError) as caught:
        read_plan("I would change the cap to 40.")
    assert caught.value.stage == "extract"
    assert "the reply holds no JSON object" in caught.value.message
    with pytest.raises(PlanReplyError, match="the reply is empty"):
        read_plan("   ")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_any_text_reads_or_fails_with_a_plan_reply_error(text: str) -> None:
    try:
        read = read_plan(text)
    except PlanReplyError as error:
        assert error.message and error.raw == text
    else:
        assert read.plan.mode in ("fix-plan", "apply")


@settings(max_examples=100, deadline=None)
@given(prefix=st.text(max_size=60).filter(lambda s: "{" not in s and "[" not in s),
       suffix=st.text(max_size=60))  # fmt: skip
def test_a_valid_plan_is_found_whatever_prose_comes_before(prefix: str, suffix: str) -> None:
    read = read_plan(prefix + json.dumps(VALID) + "\n" + suffix)
    assert read.plan.summary == "Fix it."


def test_a_stray_object_in_the_prose_does_not_hide_the_plan() -> None:
    text = 'Settings stay {"debug": false}. The plan:\n' + json.dumps(VALID)
    assert read_plan(text).plan.summary == "Fix it."
    with pytest.raises(PlanReplyError) as caught:
        read_plan('Only {"debug": false} here.')
    assert "$: 'mode' is a required property" in caught.value.message
