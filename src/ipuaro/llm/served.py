"""The context window an OpenAI-compatible server actually serves, asked before the first request.

An OpenAI-compatible server allocates its window when it starts (llama.cpp ``-c``, vLLM
``--max-model-len``, LM Studio's "context length"); a prompt above it fails, often as a stream
that just stops. Each server says its size in its own place, tried in this order:

- llama.cpp ``llama-server``: ``GET /props`` → ``default_generation_settings.n_ctx`` (one slot's
  window) or ``n_ctx``;
- LM Studio: ``GET /api/v0/models`` → ``loaded_context_length`` (else ``max_context_length``);
- vLLM: ``GET /v1/models`` → ``max_model_len``;
- llama-cpp-python's server reports its size nowhere; it is recognised by
  ``/extras/tokenize/count`` and asked with one prompt longer than any window it could hold
  (:data:`OVERSIZED_PROMPT_TOKENS`): it refuses that before evaluating anything, naming its
  window. The error text is read by :func:`ipuaro.llm.errors.window_from_error`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ipuaro.llm.errors import window_from_error
from ipuaro.llm.lean_httpx import httpx

PROBE_TIMEOUT_S = 10.0
OVERSIZED_PROMPT_TOKENS = 1 << 19
"""Above any window llama-cpp-python is started with on a workstation (512K tokens of KV cache
is tens of GB); tokenizing it takes the server ~3 s, once per session."""


@dataclass(frozen=True)
class ServedWindow:
    tokens: int
    where: str
    """Which answer gave it, e.g. ``GET /props n_ctx``: shown to the user."""


async def served_window(http: httpx.AsyncClient, base_url: str, model: str) -> ServedWindow | None:
    """The server's window for ``model``, or None when the server does not say.

    ``base_url`` is the OpenAI base (``http://host:port/v1``); ``http`` carries the API key."""
    base = base_url.rstrip("/")
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    for probe in (_llama_cpp, _lm_studio, _vllm, _llama_cpp_python):
        try:
            found = await probe(http, root, base, model)
        except (httpx.HTTPError, ValueError):
            found = None
        if found is not None:
            return found
    return None


async def _get(http: httpx.AsyncClient, url: str) -> Any:
    response = await http.get(url, timeout=PROBE_TIMEOUT_S)
    return response.json() if response.status_code == 200 else None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


async def _llama_cpp(
    http: httpx.AsyncClient, root: str, base: str, model: str
) -> ServedWindow | None:
    props = await _get(http, f"{root}/props")
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    per_slot = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if per_slot is not None:
        return ServedWindow(per_slot, "GET /props default_generation_settings.n_ctx")
    total = _positive(props.get("n_ctx"))
    return ServedWindow(total, "GET /props n_ctx") if total is not None else None


def _entry(payload: Any, model: str) -> dict[str, Any] | None:
    entries = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(entries, list):
        return None
    matching = [e for e in entries if isinstance(e, dict) and e.get("id") == model]
    return matching[0] if matching else None


async def _lm_studio(
    http: httpx.AsyncClient, root: str, base: str, model: str
) -> ServedWindow | None:
    entry = _entry(await _get(http, f"{root}/api/v0/models"), model)
    if entry is None:
        return None
    for key in ("loaded_context_length", "max_context_length"):
        tokens = _positive(entry.get(key))
        if tokens is not None:
            return ServedWindow(tokens, f"GET /api/v0/models {key}")
    return None


async def _vllm(http: httpx.AsyncClient, root: str, base: str, model: str) -> ServedWindow | None:
    entry = _entry(await _get(http, f"{base}/models"), model)
    tokens = _positive(entry.get("max_model_len")) if entry is not None else None
    return ServedWindow(tokens, "GET /v1/models max_model_len") if tokens is not None else None


async def _llama_cpp_python(
    http: httpx.AsyncClient, root: str, base: str, model: str
) -> ServedWindow | None:
    counted = await http.post(
        f"{root}/extras/tokenize/count", json={"input": "hi"}, timeout=PROBE_TIMEOUT_S
    )
    if counted.status_code != 200 or not isinstance(counted.json().get("count"), int):
        return None
    # " hi" is one token in every vocabulary llama.cpp loads; the server tokenizes, compares
    # with its window and refuses, all before any evaluation.
    body = {"model": model, "prompt": " hi" * OVERSIZED_PROMPT_TOKENS, "max_tokens": 1}
    refused = await http.post(f"{base}/completions", json=body, timeout=PROBE_TIMEOUT_S * 6)
    if refused.status_code < 400:
        return None
    tokens = window_from_error(refused.text)
    if tokens is None:
        return None
    return ServedWindow(tokens, "llama-cpp-python's refusal of an oversized prompt")
