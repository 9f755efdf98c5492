from __future__ import annotations

import json

import pytest

from ipuaro.agent.context.history import (
    assistant_message,
    summary_message,
    tool_message,
    user_message,
)
from ipuaro.agent.sessions.jsonl import FORMAT_VERSION, JsonlError, export_lines, import_text
from ipuaro.domain import Session, SessionStats, ToolCall, ToolResult, UndoEntry


def sample_session() -> Session:
    call = ToolCall(id="c1", name="get_lines", parameters={"path": "a.py"})
    session = Session(
        id="abc123",
        project_name="tmp-proj",
        created_at=1_700_000_000.25,
        last_activity_at=1_700_000_100.5,
        model="qwen2.5-coder:7b-instruct",
        title="explain a.py",
        stats=SessionStats(total_tokens=42, tool_calls=1),
        input_history=["explain a.py"],
    )
    session.history = [
        user_message("explain a.py"),
        assistant_message("", [call]),
        tool_message(call, ToolResult(call_id="c1", success=True, data="x"), "1| x = 1"),
        summary_message("Task state: explained a.py", 900, 120),
        user_message("и ещё", kind="steer"),
        assistant_message("a.py sets x.", []),
    ]
    return session


def undo_entry() -> UndoEntry:
    return UndoEntry(
        id="u1",
        timestamp=1.5,
        file_path="a.py",
        previous_content=["x = 1\n"],
        new_content=["x = 2\n"],
        description="bump",
    )


def test_export_has_a_versioned_header_and_typed_lines() -> None:
    lines = [json.loads(line) for line in export_lines(sample_session(), "/home/u/p")]
    header = lines[0]
    assert header["type"] == "header"
    assert header["version"] == FORMAT_VERSION
    assert header["id"] == "abc123" and header["cwd"] == "/home/u/p"
    assert header["timestamp"].endswith("Z")
    types = [line["type"] for line in lines]
    assert types[:2] == ["header", "model_change"]
    assert types.count("message") == 5
    compaction = next(line for line in lines if line["type"] == "compaction")
    assert compaction["token_before"] == 900 and compaction["token_after"] == 120
    assistant = next(line for line in lines if line.get("toolCalls"))
    assert assistant["toolCalls"][0]["name"] == "get_lines"


def test_round_trip_keeps_everything() -> None:
    session = sample_session()
    text = "\n".join(export_lines(session, "/p", [undo_entry()], [undo_entry()]))
    imported = import_text(text)
    assert imported.cwd == "/p"
    assert imported.undo == [undo_entry()] and imported.redo == [undo_entry()]
    again = imported.session
    assert again.id == session.id and again.model == session.model
    assert again.stats == session.stats and again.input_history == session.input_history
    assert [(m.role, m.content, m.kind) for m in again.history] == [
        (m.role, m.content, m.kind) for m in session.history
    ]
    assert abs(again.history[0].timestamp - session.history[0].timestamp) < 1e-5
    assert again.history[1].tool_calls == session.history[1].tool_calls


def test_unknown_entry_types_are_skipped_and_reported() -> None:
    lines = export_lines(sample_session(), "/p")
    lines.insert(2, json.dumps({"type": "label", "text": "from a newer ipuaro"}))
    imported = import_text("\n".join(lines))
    assert imported.skipped_types == {"label"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("not json", "line 1: not JSON"),
        ('{"type": "message", "role": "user"}', "first line must be the header"),
        ('{"type": "header", "version": 99, "id": "x"}', "version 99 is not supported"),
        ('{"type": "header", "version": 1}', "no session 'id'"),
        (
            '{"type": "header", "version": 1, "id": "x", "timestamp": "2024-01-01T00:00:00Z"}\n'
            '{"type": "message", "role": "wizard", "content": "hi", "timestamp": 1}',
            r"line 2 \(message\): role: Input should be",
        ),
    ],
)
def test_bad_files_name_the_line_and_the_problem(text: str, message: str) -> None:
    with pytest.raises(JsonlError, match=message):
        import_text(text)
