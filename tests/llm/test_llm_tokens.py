"""estimate_tokens against counts measured with the Qwen tokenizer (qwen.tiktoken, the
vocabulary of qwen2.5-coder) on fixed snippets; the counts were taken once, offline."""

from __future__ import annotations

import pytest

from ipuaro.domain.session import ChatMessage, ToolCall
from ipuaro.llm.tokens import MESSAGE_OVERHEAD, estimate_chat_tokens, estimate_tokens

TYPESCRIPT = """import { Observable } from '../Observable';
import { operate } from '../util/lift';

export function takeWhile<T>(predicate: (value: T, index: number) => boolean, inclusive = false) {
  return operate((source, subscriber) => {
    let index = 0;
    source.subscribe(
      createOperatorSubscriber(subscriber, (value) => {
        const result = predicate(value, index++);
        (result || inclusive) && subscriber.next(value);
        !result && subscriber.complete();
      })
    );
  });
}
"""
PYTHON = '''class ContextWindow:
    """The context size in effect for the session."""

    def __init__(self, tokens: int, source: str) -> None:
        self.tokens = tokens
        self.source = source

    def describe(self) -> str:
        if self.tokens < 16_384:
            return f"{self.tokens} tokens (small: raise llm.contextWindow)"
        return f"{self.tokens} tokens from {self.source}"
'''
ENGLISH = (
    "The model never gets the code up front: it gets the project's structure and an AST "
    "summary, and pulls exactly the code it needs through tools backed by a persistent index. "
    "The user sees every change as a diff and confirms it."
)
RUSSIAN = (
    "Модель никогда не получает код заранее: она видит структуру проекта и сводку AST, а нужный "
    "код запрашивает через инструменты, опирающиеся на постоянный индекс."
)
CHINESE = (
    "模型不会预先获得代码：它只看到项目结构和语法树摘要，并通过基于持久索引的工具精确获取所需的代码。"
    "用户会以差异的形式看到每一次修改并确认。"
)
TOOL_JSON = (
    '{"name": "edit_lines", "arguments": {"path": "src/index.ts", "start": 10, "end": 12, '
    '"content": "const x = 1;\\nconst y = 2;\\n"}}'
)

# (text, tokens counted by the Qwen tokenizer)
MEASURED = {
    "typescript": (TYPESCRIPT, 110),
    "python": (PYTHON, 96),
    "english": (ENGLISH, 47),
    "russian": (RUSSIAN, 53),
    "chinese": (CHINESE, 39),
    "json": (TOOL_JSON, 51),
}


@pytest.mark.parametrize("kind", list(MEASURED))
def test_each_snippet_is_within_40_percent(kind: str) -> None:
    text, real = MEASURED[kind]
    assert abs(estimate_tokens(text) - real) / real <= 0.40


def test_code_is_within_10_percent_and_the_set_within_10_percent() -> None:
    for kind in ("typescript", "python"):
        text, real = MEASURED[kind]
        assert abs(estimate_tokens(text) - real) / real <= 0.10, kind
    estimated = sum(estimate_tokens(text) for text, _ in MEASURED.values())
    real_total = sum(real for _, real in MEASURED.values())
    assert abs(estimated - real_total) / real_total <= 0.10


def test_better_than_chars_over_3_5_on_code() -> None:
    for kind in ("typescript", "python"):
        text, real = MEASURED[kind]
        assert abs(estimate_tokens(text) - real) < abs(len(text) / 3.5 - real)


def test_edges() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens(TYPESCRIPT * 2) > estimate_tokens(TYPESCRIPT)


def test_a_large_text_is_estimated_in_proportion() -> None:
    """~0.8 MB, as a turn may send; its speed is measured in bench/hot_paths_bench.py."""
    big = TYPESCRIPT * 2000
    assert estimate_tokens(big) == pytest.approx(2000 * estimate_tokens(TYPESCRIPT), rel=0.01)


def test_chat_estimate_adds_role_overhead_and_tool_calls() -> None:
    call = ToolCall(id="1", name="get_lines", parameters={"path": "a.ts"})
    messages = [
        ChatMessage(role="user", content="hello", timestamp=0.0),
        ChatMessage(role="assistant", content="", timestamp=0.0, tool_calls=[call]),
    ]
    total = estimate_chat_tokens(messages, system="be brief")
    expected_floor = estimate_tokens("hello") + estimate_tokens("be brief") + 3 * MESSAGE_OVERHEAD
    assert total > expected_floor
