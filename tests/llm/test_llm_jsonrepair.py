"""The lenient JSON reader: safe repairs only, never completing a cut-off value."""

from __future__ import annotations

import pytest

from ipuaro.llm.jsonrepair import JsonRepairError, find_json_end, loads_lenient


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ('{"a": [1, 2,],}', {"a": [1, 2]}),
        ("{'a': 'it\\'s'}", {"a": "it's"}),
        ("{'a': \"x\"}", {"a": "x"}),
        ('{"a": "line1\nline2\ttab"}', {"a": "line1\nline2\ttab"}),
        ('{"a": True, "b": False, "c": None}', {"a": True, "b": False, "c": None}),
        ('{path: "a.ts", start: 3}', {"path": "a.ts", "start": 3}),
        ('{"re": "\\d+"}', {"re": "\\d+"}),
        ('{"q": "say "hi" now"}', {"q": 'say "hi" now'}),
        ("{'q': 'say \"hi\"'}", {"q": 'say "hi"'}),
    ],
)
def test_repairs(text: str, value: object) -> None:
    assert loads_lenient(text) == value


def test_a_value_that_never_closes_is_not_completed() -> None:
    with pytest.raises(JsonRepairError) as info:
        loads_lenient('{"path": "a.py", "content": "def f():')
    assert info.value.truncated
    assert "not closed" in str(info.value)


def test_nonsense_is_reported_with_a_position() -> None:
    with pytest.raises(JsonRepairError, match="line 1 column"):
        loads_lenient('{"a" 1}')


def test_find_json_end_ignores_braces_in_strings() -> None:
    text = 'x {"a": "}", "b": {"c": \'{\'}} tail'
    end = find_json_end(text, 2)
    assert end is not None and text[2:end] == '{"a": "}", "b": {"c": \'{\'}}'
    assert find_json_end('{"a": {', 0) is None
