"""A fast local token estimate for the moments between server-reported counts.

Plain ``chars / 3.5`` overestimates code by 20–40 % with Qwen's tokenizer (indentation and
common words are single tokens) and underestimates Chinese by ~27 %. The estimate here counts
what tokenizers actually split on: words (ASCII letter/digit runs) plus a little per character
for long identifiers, punctuation, newlines (with their indentation) and non-ASCII characters.

Measured against the Qwen tokenizer (the vocabulary of qwen2.5-coder; ``qwen.tiktoken``) on
files sampled from rxjs 7.8.1 ``src/internal`` (40 TypeScript files), Django 5.0.6 ``db``
(35 Python files) and Django admin JavaScript (18 files), and on this project's design docs
(English, Russian, Chinese)::

    kind        files  mean error  90th pct |error|  worst file  whole set   chars/3.5
    TypeScript  40     +1.4 %      10 %              18 %        -0.8 %      +22 %
    Python      35     -4.2 %      12 %              22 %        -5.1 %      +39 %
    JavaScript  18     +3.5 %      14 %              29 %        -4.3 %      +42 %
    docs: English -7.0 %, Russian +2.6 %, Chinese -3.4 %         (+12 / -10 / -27 %)

Speed: about 60 ms per megabyte of text (pure Python regexes).

The worst files are small ones or ones full of non-ASCII literals; over a whole prompt the
errors average out to a few percent. Good enough to budget a context window; usage reported
by the server always wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ipuaro.domain.session import ChatMessage

_WORD = re.compile(r"[A-Za-z0-9_]+")
_PUNCT = re.compile(r"[!-/:-@\[-^`{-~]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\u3040-\u30ff\uff00-\uffef]")

# Per-feature costs fitted by least squares on relative error (see the module docstring).
_PER_WORD = 0.8
_PER_WORD_CHAR = 0.08
_PER_PUNCT = 0.45
_PER_NEWLINE = 1.25
_PER_CJK = 0.8
_PER_OTHER_NON_ASCII = 0.45

MESSAGE_OVERHEAD = 5
"""Role markers around each chat message (``<|im_start|>role\\n … <|im_end|>\\n``)."""


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    words = _WORD.findall(text)
    estimate = (
        _PER_WORD * len(words)
        + _PER_WORD_CHAR * sum(map(len, words))
        + _PER_PUNCT * len(_PUNCT.findall(text))
        + _PER_NEWLINE * text.count("\n")
    )
    if not text.isascii():
        cjk = len(_CJK.findall(text))
        # One C-level regex scan instead of a Python loop over every character.
        other = len(_NON_ASCII.findall(text)) - cjk
        estimate += _PER_CJK * cjk + _PER_OTHER_NON_ASCII * other
    return max(1, round(estimate))


def estimate_chat_tokens(
    messages: Iterable[ChatMessage], *, system: str | None = None, extra: str = ""
) -> int:
    """The prompt size of a conversation; ``extra`` is any other text sent (tool schemas)."""
    total = estimate_tokens(extra)
    if system:
        total += estimate_tokens(system) + MESSAGE_OVERHEAD
    for message in messages:
        total += estimate_tokens(message.content) + MESSAGE_OVERHEAD
        for call in message.tool_calls or []:
            total += estimate_tokens(call.name) + estimate_tokens(str(call.parameters))
    return total
