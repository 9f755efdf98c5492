"""Property tests of the rule for calls found in text (docs/tool-calls.md).

Replies are generated around calls the way small models write them: prose before and after in
several languages, quotations, tables, diffs, string literals, lists of alternatives, bare calls.
Whatever the framing:

- no write, delete, command or memory change runs from text without the second signal (a reply
  that is nothing but the call);
- every call that is the reply's action is recovered: a read runs at once, a write is held for
  one extra turn, a bare call runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipuaro.agent.run.intent import Intent, held_message, sort_calls
from ipuaro.domain import ToolCall
from ipuaro.llm.toolcalls import parse_tool_calls

READ_ONLY = frozenset({"get_lines", "grep_search"})
CHANGING = ("delete_file", "run_command", "create_file", "remember")
ALLOWED = READ_ONLY | frozenset(CHANGING)
ARGUMENTS: dict[str, dict[str, Any]] = {
    "get_lines": {"path": "src/cart.ts", "start": 1, "end": 40},
    "grep_search": {"pattern": "applyDiscount"},
    "delete_file": {"path": "src/legacy.ts"},
    "run_command": {"command": "rm -rf build"},
    "create_file": {"path": "notes.md", "content": "line one\nline two\n"},
    "remember": {"fact": "tests use vitest"},
}
PROPERTY = settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def read_only(call: ToolCall) -> bool:
    return call.name in READ_ONLY


# --- call shapes --------------------------------------------------------------------------


def json_call(name: str) -> str:
    return json.dumps({"name": name, "arguments": ARGUMENTS[name]})


def python_dict_call(name: str) -> str:
    return repr({"name": name, "arguments": ARGUMENTS[name]})


def one_line(name: str, shape: str) -> str:
    """Shapes that fit on one line (a table cell, a string literal, a list item)."""
    body = json_call(name)
    return {
        "json": body,
        "python": python_dict_call(name),
        "tag": f"<tool_call>{body}</tool_call>",
        "function": f"<function={name}>{json.dumps(ARGUMENTS[name])}</function>",
    }[shape]


def block(name: str, shape: str) -> str:
    """Shapes a model writes on lines of their own."""
    body = json_call(name)
    args = json.dumps(ARGUMENTS[name])
    return {
        "json": body,
        "python": python_dict_call(name),
        "fence": f"```json\n{body}\n```",
        "tag": f"<tool_call>\n{body}\n</tool_call>",
        "function": f"<function={name}>\n{args}\n</function>",
        "react": f"Action: {name}\nAction Input: {args}",
        "bold_react": f"**Action:** {name}\n**Action Input:** {args}",
    }[shape]


ONE_LINE = ("json", "python", "tag", "function")
BLOCK = ("json", "python", "fence", "tag", "function", "react", "bold_react")

# --- prose --------------------------------------------------------------------------------

NEUTRAL_LEAD = (
    "Let me look at this first.",
    "I checked the imports and the call sites; the old module is only used by the cart.",
    "Сначала посмотрю на файл.",
    "先看一下这个文件。",
    "Ich schaue mir zuerst die Datei an.",
    "Voy a revisar el archivo primero.",
    "Je vais d'abord regarder le fichier.",
    "まずファイルを確認します。",
)
NEUTRAL_TRAIL = (
    "After that I will update the tests.",
    "Потом обновлю тесты.",
    "然后我会更新测试。",
    "Danach passe ich die Tests an.",
    "This should be quick.",
)
ANY_PROSE = (
    NEUTRAL_LEAD
    + NEUTRAL_TRAIL
    + (
        "I will NOT make this call, it is only what it would look like:",
        "Nur ein Beispiel, ich führe es nicht aus:",
        "Earlier I ran this:",
        "Это только пример, не запускай его.",
        "这只是一个例子，不要执行。",
        "Tell me which one to run.",
        "Possible next steps:",
    )
)


@st.composite
def prose(draw: st.DrawFn, choices: tuple[str, ...], *, at_least: int = 0) -> str:
    sentences = draw(st.lists(st.sampled_from(choices), min_size=at_least, max_size=3))
    return " ".join(sentences)


# --- shown structures ---------------------------------------------------------------------


@st.composite
def shown_reply(draw: st.DrawFn) -> str:
    """A reply where every call stands in a structure that shows it."""
    names = draw(st.lists(st.sampled_from(sorted(ALLOWED)), min_size=1, max_size=3))
    shape = draw(st.sampled_from(ONE_LINE))
    kind = draw(st.sampled_from(("quote", "table", "diff", "string", "alternatives")))
    lead = draw(prose(ANY_PROSE))
    trail = draw(prose(ANY_PROSE))
    calls = [one_line(name, shape) for name in names]
    if kind == "quote":
        body = "\n".join(f"> {line}" for c in calls for line in block_lines(c))
    elif kind == "table":
        rows = [f"| {i} | {c} | reads or changes |" for i, c in enumerate(calls, 1)]
        body = "| # | call | effect |\n|---|---|---|\n" + "\n".join(rows)
    elif kind == "diff":
        lines = [f"+    {c}" for c in calls]
        body = "--- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -1,3 +1,4 @@\n" + "\n".join(
            [" def test_x():", *lines]
        )
    elif kind == "string":
        quote = "'" if shape != "python" else '"'
        body = "\n".join(f"    payload = {quote}{c}{quote}" for c in calls)
        body = "def test_parse():\n" + body + "\n    assert parse(payload)"
    else:
        if len(calls) < 2:
            calls.append(one_line("get_lines", shape))
        marker = draw(st.sampled_from(("-", "*", "1.")))
        body = "\n".join(f"{marker} {c}" for c in calls)
    return "\n\n".join(part for part in (lead, body, trail) if part)


def block_lines(text: str) -> list[str]:
    return text.splitlines() or [text]


@dataclass(frozen=True)
class Framed:
    text: str
    names: tuple[str, ...]
    bare: bool


@st.composite
def action_reply(draw: st.DrawFn, *, neutral: bool) -> Framed:
    """A reply whose calls are its action: alone (bare) or with prose around them."""
    names = tuple(draw(st.lists(st.sampled_from(sorted(ALLOWED)), min_size=1, max_size=2)))
    shape = draw(st.sampled_from(BLOCK))
    if shape in ("react", "bold_react"):
        names = names[:1]
    choices_lead = NEUTRAL_LEAD if neutral else ANY_PROSE
    choices_trail = NEUTRAL_TRAIL if neutral else ANY_PROSE
    bare = draw(st.booleans())
    lead = "" if bare else draw(prose(choices_lead, at_least=0))
    trail = "" if bare else draw(prose(choices_trail, at_least=0 if lead else 1))
    if shape in ("react", "bold_react"):
        thought = draw(st.sampled_from(("", "Thought: I need the file.\n", "**Thought:** ok\n")))
        body = thought + block(names[0], shape)
        if not bare:
            body = f"{lead}\n\n{body}\n\n{trail}".strip()
        return Framed(body, names, bare)
    parts = [block(name, shape) for name in names]
    if not bare and len(parts) > 1:
        parts.insert(1, draw(st.sampled_from(NEUTRAL_LEAD)) if neutral else "Then:")
    body = "\n\n".join(parts)
    text = "\n\n".join(part for part in (lead, body, trail) if part)
    return Framed(text, names, bare or text == body)


def decide(text: str) -> Intent:
    parsed = parse_tool_calls(text, ALLOWED)
    return sort_calls(parsed.calls, parsed, read_only)


# --- properties ---------------------------------------------------------------------------


@PROPERTY
@given(shown_reply())
def test_a_call_shown_in_a_structure_never_runs(text: str) -> None:
    intent = decide(text)
    assert intent.run == [] and intent.held == [], text


@PROPERTY
@given(action_reply(neutral=False))
def test_nothing_changes_from_text_without_the_second_signal(reply: Framed) -> None:
    intent = decide(reply.text)
    changing = [call.name for call in intent.run if call.name not in READ_ONLY]
    if not reply.bare:
        assert changing == [], reply.text


@PROPERTY
@given(action_reply(neutral=True))
def test_every_call_that_is_the_replys_action_is_recovered(reply: Framed) -> None:
    intent = decide(reply.text)
    ran = [call.name for call in intent.run]
    held = [call.name for call in intent.held]
    assert sorted(ran + held) == sorted(reply.names), reply.text
    if reply.bare:
        assert held == [], reply.text
    assert all(name in READ_ONLY for name in ran) or reply.bare
    if held:
        assert "reply with only the call" in held_message(intent.held, native=False)


# --- the positive shapes, measured --------------------------------------------------------

LONG_REASONING = " ".join(
    [
        "The failing test calls applyDiscount with a negative amount.",
        "The cart module forwards it unchanged, and pricing.ts rounds before clamping,",
        "so the bug is in the order of those two steps. I need the exact lines.",
    ]
    * 4
)


def positive_cases() -> list[tuple[str, str, list[str]]]:
    """(shape, reply, the calls it means) for the shapes issue 24 measures."""
    cases: list[tuple[str, str, list[str]]] = []
    for name in ("get_lines", "grep_search", "delete_file", "create_file", "run_command"):
        args = ARGUMENTS[name]
        body = json_call(name)
        single = repr({"name": name, "arguments": args})
        escaped = json.dumps({"name": name, "arguments": args}).replace("\\n", "\\\\n")
        cases += [
            ("after long reasoning", f"{LONG_REASONING}\n\n```json\n{body}\n```", [name]),
            ("two calls", f"{body}\n{json_call('get_lines')}", [name, "get_lines"]),
            (
                "two calls with prose",
                f"First:\n{body}\n\nThen:\n{json_call('grep_search')}",
                [name, "grep_search"],
            ),
            ("trailing commentary", f"{body}\n\nThis shows where the total is computed.", [name]),
            ("lead-in prose", f"Let me do that now.\n\n<tool_call>\n{body}\n</tool_call>", [name]),
            ("python dict", single, [name]),
            ("single-quoted", body.replace('"', "'"), [name]),
            ("escaped newlines", escaped, [name]),
            ("react", f"Thought: go\nAction: {name}\nAction Input: {json.dumps(args)}", [name]),
            ("bold react", f"**Action:** {name}\n**Action Input:** {json.dumps(args)}", [name]),
        ]
    return cases


def test_the_positive_shapes_are_recovered_at_least_98_percent() -> None:
    """A read runs from the reply itself; a write runs at once when bare, else it is held for
    exactly one extra turn (where a bare reply runs it)."""
    cases = positive_cases()
    recovered = 0
    misses: list[str] = []
    for shape, text, names in cases:
        intent = decide(text)
        got = sorted(c.name for c in intent.run + intent.held)
        reads_ran = not any(c.name in READ_ONLY for c in intent.held)
        if got == sorted(names) and reads_ran:
            recovered += 1
        else:
            misses.append(f"{shape}: {text[:80]!r} -> {got}")
    rate = recovered / len(cases)
    print(f"\npositive shapes: {recovered}/{len(cases)} recovered ({rate:.1%})")
    assert rate >= 0.98, "\n".join(misses)
