"""Where a call written in the text stands decides whether it is the reply's action
(docs/tool-calls.md): by structure, in any language, never by a list of phrases."""

from __future__ import annotations

import pytest

from ipuaro.llm.callsite import tool_name
from ipuaro.llm.jsonrepair import loads_lenient
from ipuaro.llm.toolcalls import parse_tool_calls

ALLOWED = frozenset(
    {"get_lines", "delete_file", "run_command", "create_file", "grep_search", "read_file"}
)
DELETE = '{"name": "delete_file", "arguments": {"path": "src/legacy.ts"}}'
GET = '{"name": "get_lines", "arguments": {"path": "src/cart.ts"}}'

SHOWN = {
    "blockquote": (f"You wrote:\n> {DELETE}\nShould I run it?", "in a quotation"),
    "table": (
        f"| step | call |\n|---|---|\n| 1 | {DELETE} |\n| 2 | {GET} |\n\nTell me which to run.",
        "in a table",
    ),
    "diff": (
        f"--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,2 @@\n-x = 1\n+ {DELETE}\n",
        "in a diff",
    ),
    "string literal": (
        f"def test_parse():\n    payload = '{DELETE}'\n    assert parse(payload)",
        "in a string literal or quotation marks",
    ),
    "triple-quoted string": (
        f'data = """\n{DELETE}\n"""',
        "in a string literal or quotation marks",
    ),
    "guillemets": (f"Он написал «{DELETE}» в задаче.", "in a string literal or quotation marks"),
    "alternatives": (
        f"Options:\n- {DELETE}\n- {GET}\nWhich one should I run?",
        "in a list of alternatives",
    ),
}


@pytest.mark.parametrize("name", list(SHOWN))
def test_a_call_shown_in_a_structure_is_not_the_replys_action(name: str) -> None:
    text, where = SHOWN[name]
    parsed = parse_tool_calls(text, ALLOWED)
    assert parsed.calls == []
    assert parsed.shown and all(w == where for _, w in parsed.shown)
    assert "delete_file" in parsed.text  # shown, so it stays in the visible answer


def test_a_fence_quoted_back_is_never_a_call() -> None:
    parsed = parse_tool_calls(f"Quoting you:\n> ```json\n> {DELETE}\n> ```\n", ALLOWED)
    assert parsed.calls == [] and parsed.errors == []


def test_a_call_inside_a_string_of_code_in_an_unlabelled_fence_is_code() -> None:
    text = f"Here is the test:\n```\ndef test_x():\n    payload = '{DELETE}'\n```\n"
    parsed = parse_tool_calls(text, ALLOWED)
    assert parsed.calls == [] and parsed.errors == []


@pytest.mark.parametrize(
    "text",
    [
        DELETE,
        f"```json\n{DELETE}\n```",
        f"<tool_call>\n{DELETE}\n</tool_call>",
        'Thought: the file is unused\nAction: delete_file\nAction Input: {"path": "a.ts"}',
        f"<think>It is unused, remove it.</think>\n{DELETE}",
    ],
)
def test_a_reply_that_is_nothing_but_the_call_is_bare(text: str) -> None:
    parsed = parse_tool_calls(text, ALLOWED)
    assert [c.name for c in parsed.calls] == ["delete_file"] and parsed.bare


@pytest.mark.parametrize(
    "text",
    [
        f"I'll remove the unused module now:\n{DELETE}",
        f"{DELETE}\nThat removes the last user of the old API.",
        f"Nur ein Beispiel, ich führe es nicht aus:\n{DELETE}",
        f"First:\n{GET}\nThen:\n{DELETE}",
    ],
)
def test_a_call_with_prose_around_it_is_not_bare(text: str) -> None:
    parsed = parse_tool_calls(text, ALLOWED)
    assert "delete_file" in [c.name for c in parsed.calls] and not parsed.bare


def test_bold_react_labels_are_a_call_not_the_final_answer() -> None:
    text = '**Thought:** read it first\n**Action:** get_lines\n**Action Input:** {"path": "a.py"}'
    parsed = parse_tool_calls(text, ALLOWED)
    assert [(c.name, c.parameters) for c in parsed.calls] == [("get_lines", {"path": "a.py"})]
    assert parsed.bare and "Action" not in parsed.text


@pytest.mark.parametrize("written", ["Get_Lines", "getLines", "get-lines", "GetLines"])
def test_near_miss_names_are_accepted_with_a_note(written: str) -> None:
    parsed = parse_tool_calls(f'{{"name": "{written}", "arguments": {{"path": "a"}}}}', ALLOWED)
    assert [c.name for c in parsed.calls] == ["get_lines"]
    assert parsed.notes and written in parsed.notes[0] and "get_lines" in parsed.notes[0]


def test_an_ambiguous_or_unknown_near_miss_is_not_guessed() -> None:
    assert tool_name("getLines", {"get_lines", "GET_LINES"}) is None
    assert tool_name("fetchLines", ALLOWED) is None


def test_json_with_comments_is_read() -> None:
    text = '```json\n{"name": "get_lines", // read it\n "arguments": {"path": "a"} /* x */}\n```'
    parsed = parse_tool_calls(text, ALLOWED)
    assert [(c.name, c.parameters) for c in parsed.calls] == [("get_lines", {"path": "a"})]
    assert loads_lenient('{"url": "http://x/y", // c\n}') == {"url": "http://x/y"}
