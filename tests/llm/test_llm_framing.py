"""A call the reply shows as an example is not run; real calls in the same shapes still are.

The labelled corpus (framing_corpus.py) gives precision and recall of "is a call"; the target is
both 1.0: no example executed, no real call lost.
"""

from __future__ import annotations

import pytest

from ipuaro.llm.framing import is_example, lead_in, trailer, whole_reply_declines
from ipuaro.llm.toolcalls import parse_tool_calls
from tests.llm.framing_corpus import ALLOWED, CORPUS, EXAMPLES, REAL, Labelled

SHAPES = {"fence", "tag_json", "tag_xml", "function_tag", "name_tag", "react", "bare_json"}


def precision_recall(cases: list[Labelled]) -> tuple[float, float, int, int, int]:
    """Precision and recall of "is a call" (positive: the reply really calls), plus the counts
    of true positives, false positives and false negatives."""
    tp = fp = fn = 0
    for case in cases:
        called = bool(parse_tool_calls(case.text, ALLOWED).calls)
        tp += called and case.real
        fp += called and not case.real
        fn += (not called) and case.real
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return precision, recall, tp, fp, fn


def test_the_corpus_is_labelled_half_and_half_in_every_shape_and_three_languages() -> None:
    assert len(CORPUS) >= 40
    assert len({c.id for c in CORPUS}) == len(CORPUS)
    assert abs(len(EXAMPLES) - len(REAL)) <= 2
    assert all(not c.real for c in EXAMPLES) and all(c.real for c in REAL)
    assert {c.shape for c in EXAMPLES} == SHAPES == {c.shape for c in REAL}
    assert {"en", "ru", "zh"} <= {c.lang for c in EXAMPLES}
    assert {"en", "ru", "zh"} <= {c.lang for c in REAL}


@pytest.mark.parametrize("case", EXAMPLES, ids=lambda c: c.id)
def test_every_example_is_a_well_formed_call_the_shape_alone_would_run(case: Labelled) -> None:
    """Without the framing each example would be executed: the corpus is not trivially easy."""
    parsed = parse_tool_calls(case.text, ALLOWED)
    assert parsed.calls == [] and parsed.errors == []
    assert parsed.examples, "the parser should still read the example as a call shape"


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c.id)
def test_corpus_reply_is_a_call_exactly_when_labelled_real(case: Labelled) -> None:
    parsed = parse_tool_calls(case.text, ALLOWED)
    assert bool(parsed.calls) == case.real
    assert parsed.errors == []


def test_precision_and_recall_of_is_a_call_are_both_one() -> None:
    precision, recall, tp, fp, fn = precision_recall(CORPUS)
    print(
        f"\nframing corpus: {len(CORPUS)} replies, tp={tp} fp={fp} fn={fn}, "
        f"precision={precision:.3f} recall={recall:.3f}"
    )
    assert (fp, fn) == (0, 0)
    assert precision == recall == 1.0


def test_an_example_stays_in_the_visible_answer() -> None:
    case = next(c for c in EXAMPLES if c.id == "fence_for_example")
    parsed = parse_tool_calls(case.text, ALLOWED)
    assert '"delete_file"' in parsed.text
    assert parsed.text.endswith("Tell me which file you want removed.")
    assert [c.name for c in parsed.examples] == ["delete_file"]


def test_an_example_next_to_a_real_call_only_drops_the_example() -> None:
    text = (
        "Let me read the file:\n```json\n"
        '{"name": "get_lines", "arguments": {"path": "src/cart.ts"}}\n```\n\n'
        "Later, to delete a file, you would call:\n```json\n"
        '{"name": "delete_file", "arguments": {"path": "src/cart.ts"}}\n```'
    )
    parsed = parse_tool_calls(text, ALLOWED)
    assert [c.name for c in parsed.calls] == ["get_lines"]
    assert [c.name for c in parsed.examples] == ["delete_file"]
    assert '"delete_file"' in parsed.text and '"get_lines"' not in parsed.text


def test_a_broken_example_is_no_parse_error_to_reprompt_with() -> None:
    text = 'For example:\n<tool_call>\n{"name": "delete_file", "arguments": {"path": \n</tool_call>'
    parsed = parse_tool_calls(text, ALLOWED)
    assert parsed.calls == [] and parsed.errors == []


def test_lead_in_is_the_last_paragraph_and_trailer_the_first_sentence() -> None:
    assert lead_in("For example, a read.\n\nLet me read the file:\n```json\n") == (
        "Let me read the file:"
    )
    assert trailer("\n```\nThis is just an example. Then more.") == "This is just an example. "
    assert not is_example("For example, a read.\n\nLet me read the file:\n", "")
    assert is_example("Let me read.\n\nFor example:\n", "")


@pytest.mark.parametrize(
    "prose",
    [
        "I am not calling anything now.",
        "I won't call any tools here.",
        "No tool calls yet, just the format.",
        "Сейчас ничего не вызываю.",
        "这里不调用任何工具。",
    ],
)
def test_the_whole_reply_declines(prose: str) -> None:
    assert whole_reply_declines(prose)


@pytest.mark.parametrize(
    "prose",
    [
        "Let me read the example config.",
        "I'm not sure yet; let me read the file.",
        "The test failed, so I will run it again.",
        "Примерно понятно, прочитаю файл.",
    ],
)
def test_ordinary_lead_ins_are_not_examples(prose: str) -> None:
    assert not is_example(prose + "\n", "")
    assert not whole_reply_declines(prose)


# --- the parser's edges (issue 17 §7: each of these fails on a deliberately broken parser) -----


def test_flat_name_and_path_json_in_prose_is_data_not_a_call() -> None:
    """The guard in ``_read_object``: a flat object keyed ``name`` outside a tool-call tag or
    fence is ordinary JSON (an npm package, a config entry)."""
    text = 'The fixture holds {"name": "get_lines", "path": "src/a.ts"} as a plain record.'
    parsed = parse_tool_calls(text, ALLOWED)
    assert parsed.calls == [] and parsed.errors == []
    assert parsed.text == text


def test_flat_tool_key_json_in_prose_is_a_call() -> None:
    parsed = parse_tool_calls('Reading: {"tool": "get_lines", "path": "src/a.ts"}', ALLOWED)
    assert [(c.name, c.parameters) for c in parsed.calls] == [("get_lines", {"path": "src/a.ts"})]


@pytest.mark.parametrize("body", ["", "\n", "  \n  "])
def test_an_empty_tool_call_tag_is_reported_not_dropped(body: str) -> None:
    parsed = parse_tool_calls(f"Calling now.\n<tool_call>{body}</tool_call>", ALLOWED)
    assert parsed.calls == []
    assert len(parsed.errors) == 1
    assert "empty" in parsed.errors[0].message


# --- more edges, each written to catch a mutant bench/mutants.py showed surviving ---------


def test_react_final_answer_is_not_a_call_nor_an_error() -> None:
    parsed = parse_tool_calls('Thought: done.\nAction: Final Answer\nAction Input: "3"', ALLOWED)
    assert parsed.calls == [] and parsed.errors == []


def test_json_with_a_name_arguments_and_more_keys_in_prose_is_data() -> None:
    text = 'package.json has {"name": "my-app", "arguments": [], "version": "1.0"} in it.'
    parsed = parse_tool_calls(text, ALLOWED)
    assert parsed.calls == [] and parsed.errors == []


def test_prose_after_an_unclosed_named_tag_stays_visible() -> None:
    text = '<tool_call name="get_lines">{"path": "src/a.ts"}\nI will summarise after reading.'
    parsed = parse_tool_calls(text, ALLOWED)
    assert [c.parameters for c in parsed.calls] == [{"path": "src/a.ts"}]
    assert parsed.text == "I will summarise after reading."


def test_null_arguments_are_no_arguments() -> None:
    parsed = parse_tool_calls(
        '<tool_call>{"name": "get_lines", "arguments": null}</tool_call>', ALLOWED
    )
    assert [(c.name, c.parameters) for c in parsed.calls] == [("get_lines", {})]
    assert parsed.errors == []


def test_id_and_type_keys_of_a_flat_call_are_not_arguments() -> None:
    text = '{"tool": "get_lines", "path": "a.ts", "id": "call_1", "type": "function"}'
    parsed = parse_tool_calls(text, ALLOWED)
    assert [c.parameters for c in parsed.calls] == [{"path": "a.ts"}]


def test_for_example_with_a_comma_is_an_example() -> None:
    assert is_example("For example, reading the cart goes\n", "")
    assert is_example("Например, чтение корзины\n", "")
    assert is_example("比如读取购物车\n", "")
