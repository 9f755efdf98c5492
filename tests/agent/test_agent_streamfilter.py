from __future__ import annotations

import pytest

from ipuaro.agent.run.streamfilter import MarkupFilter


def run(chunks: list[str], names: frozenset[str] = frozenset()) -> str:
    markup = MarkupFilter(names)
    shown = "".join(markup.feed(c) for c in chunks)
    return shown + markup.flush()


def test_plain_text_passes_through_whole() -> None:
    text = "The function `total` adds up the cart. All good, A+ work {really}."
    assert run([text[:10], text[10:30], text[30:]]) == text


@pytest.mark.parametrize(
    "markup",
    [
        '<tool_call>{"name": "get_lines", "arguments": {"path": "a.py"}}</tool_call>',
        '<tool_call name="get_lines"><path>a.py</path></tool_call>',
        '```json\n{"name": "get_lines", "arguments": {}}\n```',
        'Action: get_lines\nAction Input: {"path": "a.py"}',
        '{"name": "get_lines", "arguments": {"path": "a.py"}}',
        "<function=get_lines>{}</function>",
    ],
)
def test_markup_is_hidden_even_when_split_across_chunks(markup: str) -> None:
    text = "Let me look at the file.\n" + markup
    chunks = [text[i : i + 3] for i in range(0, len(text), 3)]
    shown = run(chunks)
    assert shown.strip() == "Let me look at the file."


def test_named_tool_tags_are_hidden_when_tools_are_known() -> None:
    text = "Reading.\n<get_lines><path>a.py</path></get_lines>"
    assert run([text], frozenset({"get_lines"})).strip() == "Reading."
    assert "<get_lines>" in run([text])  # unknown names are ordinary text


def test_nothing_is_shown_after_the_markup_starts() -> None:
    markup = MarkupFilter()
    assert markup.feed('<tool_call>{"name"') == ""
    assert markup.quiet
    assert markup.feed(": 1}</tool_call> and then prose") == ""
    assert markup.flush() == ""
