"""Whether an OpenAI-compatible server really shows the model the ``tools`` it is sent.

Some servers accept ``tools`` and silently drop them: llama-cpp-python's ``chatml-function-calling``
handler renders them only with a ``tool_choice`` (so ipuaro always sends ``"auto"``), and a server
whose chat template has no tool section renders none at all. The model then never calls a tool
and nothing says why. So, once per server and model, two one-token requests that differ only in
one tool are compared: a server that renders the tool counts its description in the prompt
(``usage.prompt_tokens``); one that drops it counts the same prompt twice.

Why a probe and not the first real request's prompt size against an estimate: the estimate of a
real prompt is off by a third either way (chars per token differ by language and tokenizer),
which is as much as the tools weigh; the difference between two requests that differ only in the
tool is exact, costs two one-token answers at session start, and is known before the first turn
(so the first turn already uses text tool calls when it must).

The answer is kept per server URL and model for the process (:func:`forget` empties it); a server
restarted with other flags is checked again by the next ipuaro process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ipuaro.llm.lean_httpx import httpx
from ipuaro.llm.transport import error_message

PROBE_TIMEOUT_S = 60.0
"""Generous: the server may be loading the model when the first request comes."""

MIN_TOOL_TOKENS = 24
"""The probe tool's name and parameters take ~60 tokens in any tokenizer (some templates leave
the description out); a server that renders the tool counts at least this many more."""

PROBE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "lookup_word_in_dictionary",
        "description": (
            "Look up one English word in the dictionary and return its definitions, its part "
            "of speech, its pronunciation and a few example sentences that show how the word "
            "is used in ordinary writing."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "word": {"type": "string", "description": "The word to look up, in lower case."},
                "max_definitions": {
                    "type": "integer",
                    "description": "How many definitions to return at most.",
                },
            },
            "required": ["word"],
        },
    },
}


@dataclass(frozen=True)
class ToolSupport:
    honoured: bool | None
    """True: the server shows the model the tools; False: it drops or refuses them; None: the
    probe could not tell (no usage, an error) — native tools are kept."""
    detail: str
    refused: bool = False
    """The server answered the request with tools by an error (not a silent drop)."""


_KNOWN: dict[tuple[str, str], ToolSupport] = {}


def forget() -> None:
    """Drop every remembered answer (tests, or a server known to have restarted)."""
    _KNOWN.clear()


def remembered(base_url: str, model: str) -> ToolSupport | None:
    return _KNOWN.get((base_url, model))


def remember(base_url: str, model: str, support: ToolSupport) -> None:
    if support.honoured is not None:
        _KNOWN[(base_url, model)] = support


async def probe_tools(http: httpx.AsyncClient, base_url: str, model: str) -> ToolSupport:
    """Ask the server at ``base_url`` (the OpenAI base, ``…/v1``) whether ``model`` sees tools;
    ``http`` carries the API key. Never raises."""
    url = f"{base_url.rstrip('/')}/chat/completions"
    plain: dict[str, Any] = {
        "model": model,
        # With a system message: some templates render the tools only inside it
        # (llama-cpp-python's chatml-function-calling), and the agent always sends one.
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Hi"},
        ],
        "max_tokens": 1,
        "temperature": 0,
        "stream": False,
    }
    with_tool = {**plain, "tools": [PROBE_TOOL], "tool_choice": "auto"}
    try:
        bare = await http.post(url, json=plain, timeout=PROBE_TIMEOUT_S)
        if bare.status_code >= 400:
            return ToolSupport(None, f"the server refused a plain request ({bare.status_code})")
        tooled = await http.post(url, json=with_tool, timeout=PROBE_TIMEOUT_S)
    except httpx.HTTPError as exc:
        return ToolSupport(None, f"the tool check could not reach the server ({exc!r})")
    if tooled.status_code >= 500:
        failed = tooled.status_code
        return ToolSupport(None, f"the server failed on a request with tools ({failed})")
    if tooled.status_code >= 400:
        message = error_message(tooled.text)
        return ToolSupport(
            False, f"the server refused native tools ({message[:200]})", refused=True
        )
    without, with_ = _prompt_tokens(bare), _prompt_tokens(tooled)
    if without is None or with_ is None:
        return ToolSupport(None, "the server reports no prompt token count")
    added = with_ - without
    if added >= MIN_TOOL_TOKENS:
        return ToolSupport(True, f"a tool adds {added} prompt tokens")
    return ToolSupport(
        False,
        f"the server accepts tools but does not show them to the model (a request with one "
        f"tool counted {with_} prompt tokens, without it {without})",
    )


def _prompt_tokens(response: httpx.Response) -> int | None:
    try:
        payload = response.json()
    except ValueError:
        return None
    usage = payload.get("usage") if isinstance(payload, dict) else None
    tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
        return tokens
    return None
