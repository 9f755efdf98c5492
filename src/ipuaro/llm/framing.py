"""Is a call written in the text meant to run, or is it shown as an example?

Models explain formats by writing a call: "for example, a read would look like this: ```json
{…}```", "I am not calling anything now". Executing that is worse than doing nothing (a shown
``delete_file`` really deletes under ``--auto-apply``), so the reply's own framing decides.

A call is an example when

- the prose just before it (its last paragraph: the lead-in) marks what follows as an example,
  a hypothetical, a format, or something not to run;
- the prose just after it (the first sentence) says the same ("(example only, not run)");
- or the reply says anywhere outside its calls that it is not calling anything now.

Ordinary lead-ins ("Let me read the file:", "Сначала прочитаю файл:", "先读取文件：") keep a
call real. English, Russian and Chinese phrasings are recognised, since those are the users'.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

_NEGATION_EN = (
    r"\b(?:do not|don't|never|not to|should not|shouldn't|won't|will not) "
    r"(?:actually )?(?:run|execute|call|invoke) (?:this|it|that|these|the following)\b"
    r"|\bnot (?:actually )?(?:calling|running|executing|invoking)\b"
    r"|\bnot (?:meant|intended|supposed) to (?:be )?(?:run|executed|called)\b"
    r"|\bwithout (?:actually )?(?:running|calling|executing) (?:it|this|anything)\b"
)
_NEGATION_RU = (
    r"не (?:запускай|запускайте|выполняй|выполняйте|вызывай|вызывайте)"
    r"|(?:ничего )?не (?:вызываю|запускаю|выполняю)|не буду (?:вызывать|запускать)"
)
_NEGATION_ZH = (
    r"不要(?:运行|执行|调用)|请勿(?:运行|执行)|(?:并)?不(?:会)?(?:调用|执行|运行)|仅供参考"
)

# Before a call: the paragraph that introduces it.
_LEAD_IN = re.compile(
    r"|".join(
        [
            # English
            r"\bfor (?:example|instance)\b",
            r"\be\.\s?g\.",
            r"\b(?:an|one|this|illustrative) (?:example|illustration)\b(?!\s+(?:file|test|"
            r"project|dir|directory|folder|module|config|component|page|app)\b)",
            r"\bhere(?:'s| is) (?:an? )?(?:example|sample)\b",
            r"\bexample(?:s)? (?:call|only|usage|of (?:a|an|the|how|calling|using))\b",
            r"\bexample\s*[:：]",
            r"^\s*\**example\**\s*$",
            r"\bas an? (?:example|illustration)\b",
            r"\bfor illustration\b|\billustrat(?:e|es|ive|ion)\b",
            r"\bhypothetical(?:ly)?\b",
            r"\b(?:would|could|might) look\b|\blooks? like this\b",
            r"\b(?:you|one|someone|they|we) (?:would|could|can|might|'d) (?:call|use|write|send)\b",
            r"\bhow (?:to call|you(?:'d| would| can| could)? call|a call|the call|calls? look)\b",
            r"\bif I (?:were to|wanted to|was going to)\b",
            r"\b(?:call|tool[- ]call|calling|request) (?:format|syntax)\b|\bin (?:this|the "
            r"following) format\b|\bformat (?:is|of an? (?:tool )?call|for (?:a |tool )?calls?)\b",
            r"\bsyntax (?:is|looks)\b|\bin this (?:shape|form|syntax)\b",
            _NEGATION_EN,
            # Russian
            r"например|к примеру|для примера|пример(?:а|е|ом)?\b|примерно так",
            r"гипотетическ|выглядел[аи]? бы|выглядит так|формат вызова|в таком формате",
            _NEGATION_RU,
            # Chinese
            r"例如|比如|譬如|示例|举例|举个例子|例子|样例|范例|假设|假如|格式如下|格式是|调用格式",
            _NEGATION_ZH,
        ]
    ),
    _I | re.MULTILINE,
)

# After a call: only a plain statement about the call just shown.
_TRAILER = re.compile(
    r"|".join(
        [
            r"\b(?:just|only|merely) an? (?:example|illustration|sample)\b",
            r"\bexample only\b|\(example\)|\bthis (?:was|is) an? (?:example|illustration)\b",
            r"\bthat(?:'s| is| was) (?:the|how the) format\b",
            _NEGATION_EN,
            r"это (?:только |лишь |просто )?пример|только пример",
            _NEGATION_RU,
            r"(?:这|以上|上面)(?:只)?是(?:一个)?(?:示例|例子)|仅为示例|仅供参考",
            _NEGATION_ZH,
        ]
    ),
    _I,
)

# Anywhere in the prose: the reply as a whole is not calling tools.
_WHOLE_REPLY = re.compile(
    r"|".join(
        [
            r"\b(?:I am|I'm|I will|I'll|we are|we're) not (?:calling|running|executing|invoking|"
            r"making) (?:any|anything|a|the|tools?|calls?)",
            r"\bI (?:won't|will not|am not going to) (?:call|run|execute|invoke) "
            r"(?:any|anything|a tool|tools)",
            r"\bno (?:tool )?calls? (?:now|yet|here|in this (?:reply|message))\b",
            r"(?:сейчас )?ничего не (?:вызываю|запускаю|выполняю)|не вызываю (?:никаких|ни одного)",
            r"(?:现在|这里|此处)?(?:不|并不|不会)调用任何|不调用任何工具|不执行任何",
        ]
    ),
    _I,
)

_FENCE_LINE = re.compile(r"^[ \t]*```[^\n]*$", re.MULTILINE)
_SENTENCE_END = re.compile(r"[.!?。！？]\s|\n\s*\n")


def lead_in(prose: str) -> str:
    """The last paragraph of ``prose`` (the text since the previous call), fence lines
    removed: what introduces the call that follows."""
    text = _FENCE_LINE.sub("", prose).rstrip()
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    return paragraphs[-1] if paragraphs else ""


def trailer(prose: str) -> str:
    """The first sentence of ``prose`` (the text up to the next call)."""
    text = _FENCE_LINE.sub("", prose).lstrip()
    end = _SENTENCE_END.search(text)
    return text[: end.end()] if end else text[:300]


def whole_reply_declines(prose: str) -> bool:
    """The reply says it is not calling anything now (its calls are all illustrations)."""
    return _WHOLE_REPLY.search(prose) is not None


def is_example(before: str, after: str) -> bool:
    """``before``/``after``: the prose between this call and its neighbours (or the reply's
    ends). True when that framing presents the call as an example or says not to run it."""
    return _LEAD_IN.search(lead_in(before)) is not None or (
        _TRAILER.search(trailer(after)) is not None
    )
