"""Tool instructions per mode: the example each one teaches must parse back into the call."""

from __future__ import annotations

import re

import pytest

from ipuaro.domain.session import ToolCall
from ipuaro.llm.formats import (
    example_arguments,
    render_calls_as_text,
    tool_instructions,
    tool_result_text,
)
from ipuaro.llm.toolcalls import parse_tool_calls
from tests.llm.helpers import EDIT_LINES, GET_LINES, GIT_STATUS, TOOLS

NAMES = {t.name for t in TOOLS}


@pytest.mark.parametrize("mode", ["xml", "react", "json"])
def test_the_example_in_each_text_mode_parses_back_to_its_call(mode: str) -> None:
    text = tool_instructions(mode, TOOLS)  # type: ignore[arg-type]
    example = text.split("Example:\n", 1)[1].split("\n\nTools:", 1)[0]
    parsed = parse_tool_calls(example, NAMES)
    assert [c.name for c in parsed.calls] == ["get_lines"], example
    assert parsed.calls[0].parameters == {"path": "src/index.ts"}
    assert not parsed.errors


@pytest.mark.parametrize("mode", ["xml", "react", "json"])
def test_every_text_mode_lists_every_tool_with_its_parameters(mode: str) -> None:
    text = tool_instructions(mode, TOOLS)  # type: ignore[arg-type]
    assert (
        "- get_lines(path: string, start?: integer, end?: integer) — Read lines of a file." in text
    )
    assert "More detail" not in text  # only the first line of a description
    assert "- edit_lines(path: string, start: integer, end: integer, content: string)" in text
    assert "- git_status()" in text


def test_modes_teach_their_own_shape() -> None:
    assert '<tool_call name="TOOL_NAME">' in tool_instructions("xml", TOOLS)
    assert "CDATA" in tool_instructions("xml", TOOLS)
    react = tool_instructions("react", TOOLS)
    assert "Action: TOOL_NAME" in react and "Action Input:" in react
    assert 'Do not write "Observation:"' in react
    assert '{"name": "TOOL_NAME", "arguments"' in tool_instructions("json", TOOLS)
    native = tool_instructions("native", TOOLS)
    assert "tool-calling interface" in native and "Example" not in native


def test_native_does_not_repeat_the_schemas_that_travel_beside_the_prompt() -> None:
    native = tool_instructions("native", TOOLS)
    assert not any(tool.name in native for tool in TOOLS)
    assert len(native) < 200


def test_xml_example_for_a_tool_with_only_required_numbers() -> None:
    example = tool_instructions("xml", [EDIT_LINES])
    assert re.search(r"<start>1</start>\s*<end>10</end>", example)
    assert example_arguments(GIT_STATUS) == {}
    assert example_arguments(GET_LINES) == {"path": "src/index.ts"}


def test_no_tools_and_a_bad_mode() -> None:
    assert "No tools" in tool_instructions("json", [])
    with pytest.raises(ValueError, match="unknown tool format 'yaml'"):
        tool_instructions("yaml", TOOLS)  # type: ignore[arg-type]


def test_calls_rendered_back_into_text_parse_again() -> None:
    calls = [ToolCall(id="1", name="get_lines", parameters={"path": "a.ts", "start": 3})]
    text = render_calls_as_text("Let me read it.", calls)
    assert text.startswith("Let me read it.")
    parsed = parse_tool_calls(text, NAMES)
    assert [(c.name, c.parameters) for c in parsed.calls] == [
        ("get_lines", {"path": "a.ts", "start": 3})
    ]
    # Already written by the model: left as it was.
    written = 'Action: get_lines\nAction Input: {"path": "a.ts"}'
    assert render_calls_as_text(written, calls) == written
    assert tool_result_text("get_lines", "1: x") == "Observation (get_lines):\n1: x"
