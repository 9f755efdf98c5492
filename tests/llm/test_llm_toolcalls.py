"""parse_tool_calls over the reply corpus, and parse_reply merging native and text calls."""

from __future__ import annotations

import pytest

from ipuaro.domain.session import ToolCall
from ipuaro.llm.protocol import AssistantReply, Timings, ToolCallParseError, Usage
from ipuaro.llm.toolcalls import parse_reply, parse_tool_calls
from tests.llm.toolcall_corpus import ALLOWED, CORPUS, Case


def test_the_corpus_is_big_and_ids_are_unique() -> None:
    assert len(CORPUS) >= 40
    assert len({case.id for case in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[case.id for case in CORPUS])
def test_corpus_reply(case: Case) -> None:
    parsed = parse_tool_calls(case.text, ALLOWED)
    assert [(c.name, c.parameters) for c in parsed.calls] == case.calls
    assert [e.tool for e in parsed.errors] == case.errors, parsed.errors
    for error in parsed.errors:
        assert error.message and error.raw, "an error must say what and show where"
    if case.visible is not None:
        assert parsed.text == case.visible


def test_calls_get_unique_ids() -> None:
    parsed = parse_tool_calls(
        '{"name": "git_status", "arguments": {}} {"name": "git_status", "arguments": {}}', ALLOWED
    )
    assert len({c.id for c in parsed.calls}) == 2


def test_only_offered_names_become_calls() -> None:
    text = '{"name": "get_lines", "arguments": {"path": "a"}}'
    assert parse_tool_calls(text, {"get_lines"}).calls
    parsed = parse_tool_calls(text, {"git_status"})
    assert not parsed.calls
    assert [e.tool for e in parsed.errors] == ["get_lines"]
    assert "unknown tool" in parsed.errors[0].message


def test_unknown_tool_error_reads_as_an_instruction() -> None:
    error = parse_tool_calls('<tool_call name="rm"><p>x</p></tool_call>', ALLOWED).errors[0]
    assert error.message == "unknown tool 'rm': call only the tools listed in the instructions"


def reply(text: str, calls: list[ToolCall], errors: list[ToolCallParseError]) -> AssistantReply:
    return AssistantReply(text, calls, Usage(1, 1), Timings(0.1, 0.2), "stop", errors)


def test_parse_reply_merges_native_calls_with_calls_written_in_text() -> None:
    native = ToolCall(id="n1", name="get_lines", parameters={"path": "a.ts"})
    text = (
        'Also this: {"name": "git_status", "arguments": {}}\n'
        '<tool_call>{"name": "get_lines", "arguments": {"path": "a.ts"}}</tool_call>'
    )
    broken = ToolCallParseError("arguments of edit_lines: not JSON", "edit_lines", "{")
    parsed = parse_reply(reply(text, [native], [broken]), ALLOWED)
    # The text repeats the native call: it is not run twice.
    assert next((c.id, c.name) for c in parsed.calls) == ("n1", "get_lines")
    assert [c.name for c in parsed.calls] == ["get_lines", "git_status"]
    assert parsed.errors == [broken]
    assert parsed.text == "Also this:"


def test_parse_reply_keeps_native_calls_with_unknown_names_for_the_agent_to_refuse() -> None:
    native = ToolCall(id="n1", name="made_up_tool", parameters={})
    parsed = parse_reply(reply("", [native], []), ALLOWED)
    assert parsed.calls == [native]


def test_qwen_bare_json_reply_from_ollama_without_native_calls_is_found() -> None:
    # The known reality: qwen2.5-coder writes the call as text and Ollama reports none.
    text = '{"name": "get_lines", "arguments": {"path": "src/main.ts", "start": 1, "end": 50}}'
    parsed = parse_reply(reply(text, [], []), ALLOWED)
    assert [(c.name, c.parameters) for c in parsed.calls] == [
        ("get_lines", {"path": "src/main.ts", "start": 1, "end": 50})
    ]
    assert parsed.text == ""
