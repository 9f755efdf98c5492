from __future__ import annotations

from ipuaro.agent.context import compaction_policy as compaction
from ipuaro.agent.context.history import (
    assistant_message,
    context_view,
    dangling_calls,
    summary_message,
    tool_message,
    user_message,
)
from ipuaro.domain import ChatMessage, ToolCall, ToolResult


def read_turn(i: int, path: str) -> list[ChatMessage]:
    call = ToolCall(id=f"c{i}", name="get_lines", parameters={"path": path})
    result = ToolResult(call_id=call.id, success=True, data="code")
    return [
        assistant_message(f"reading {i}", [call]),
        tool_message(call, result, f"1| code of {path}"),
    ]


def conversation(turns: int) -> list[ChatMessage]:
    history = [user_message("refactor the cart")]
    for i in range(turns):
        history += read_turn(i, f"src/file{i}.py")
    return history


def test_split_keeps_eight_and_never_starts_on_a_tool_result() -> None:
    history = conversation(10)  # 21 messages
    where = compaction.split(history)
    assert where is not None
    assert where.start == 0
    kept = history[where.boundary :]
    assert len(kept) in (8, 9)
    assert kept[0].role != "tool"


def test_nothing_to_split_in_a_short_conversation() -> None:
    assert compaction.split(conversation(3)) is None


def test_split_starts_after_the_previous_summary() -> None:
    history = conversation(10)
    history.insert(11, summary_message("earlier work", 100, 50))
    where = compaction.split(history)
    assert where is not None
    assert where.start == 12
    assert where.previous_summary == "earlier work"


def test_view_after_a_summary_keeps_the_pinned_request() -> None:
    history = conversation(10)
    pinned = history[0]
    history.insert(13, summary_message("s", 1, 1))
    view = context_view(history, pinned)
    assert view.summary == "s"
    assert view.messages[0] is pinned
    assert view.messages[1:] == history[14:]


def test_stale_code_is_dropped_but_recently_mentioned_files_stay() -> None:
    history = conversation(6)
    history.append(user_message("now look at src/file0.py again"))
    dropped = compaction.drop_stale_code(history)
    contents = [m.content for m in history if m.role == "tool"]
    assert "1| code of src/file0.py" in contents  # mentioned in the last five messages
    assert "1| code of src/file5.py" in contents  # inside the last five messages
    assert any("code of src/file1.py dropped" in c for c in contents)
    assert dropped == 3  # file1..file3; file4 and file5 are in the last five messages


def test_drop_tool_results_blanks_them_once() -> None:
    history = conversation(3)
    assert compaction.drop_tool_results(history) == 3
    assert compaction.drop_tool_results(history) == 0
    assert all(m.content == compaction.DROPPED_RESULT for m in history if m.role == "tool")


def test_transcript_keeps_head_and_tail_when_too_long() -> None:
    history = conversation(40)
    text = compaction.render_transcript(history, "old summary", 2000)
    assert len(text) < 2100
    assert text.startswith("[Earlier summary]\nold summary")
    assert "middle of the conversation omitted" in text
    assert "src/file39.py" in text


def test_mechanical_summary_lists_requests_and_files() -> None:
    text = compaction.mechanical_summary(conversation(3))
    assert "refactor the cart" in text
    assert "src/file0.py, src/file1.py, src/file2.py" in text


def test_dangling_calls_are_those_without_results() -> None:
    history = conversation(1)
    a = ToolCall(id="x", name="git_status")
    b = ToolCall(id="y", name="git_diff")
    history.append(assistant_message("", [a, b]))
    history.append(tool_message(a, ToolResult(call_id="x", success=True), "clean"))
    assert [c.id for c in dangling_calls(history)] == ["y"]
    history.append(user_message("next"))
    assert dangling_calls(history) == []
