"""Build the configured model client. The only place that reads the API key from the
environment (at call time, never at import)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from ipuaro.config.schema import LlmConfig
from ipuaro.llm.ollama import OllamaClient
from ipuaro.llm.openai import OpenAICompatibleClient
from ipuaro.llm.protocol import ModelClient
from ipuaro.llm.streaming import RetrySettings


def create_client(
    config: LlmConfig,
    *,
    context_window: int | None = None,
    environ: Mapping[str, str] | None = None,
    retry_delays: tuple[float, ...] | None = None,
) -> ModelClient:
    """``context_window`` pins the window (a resumed session keeps its own); otherwise
    ``llm.contextWindow`` applies, capped to the model's size. ``environ`` defaults to
    ``os.environ``; ``retry_delays`` to 1 s, 2 s, 4 s (used only with ``llm.autoRetry``)."""
    env = os.environ if environ is None else environ
    retry = RetrySettings(config.auto_retry)
    if retry_delays is not None:
        retry = RetrySettings(config.auto_retry, retry_delays)
    if config.provider == "ollama":
        return OllamaClient(
            model=config.model,
            base_url=config.base_url,
            context_window=context_window,
            requested_context=config.context_window,
            temperature=config.temperature,
            keep_alive=config.keep_alive,
            timeout=config.timeout,
            retry=retry,
            max_tokens=config.max_reply_tokens,
        )
    api_key = env.get(config.api_key_env) if config.api_key_env else None
    return OpenAICompatibleClient(
        model=config.model,
        base_url=config.base_url,
        api_key=api_key or None,
        context_window=context_window,
        requested_context=config.context_window,
        temperature=config.temperature,
        timeout=config.timeout,
        retry=retry,
        max_tokens=config.max_reply_tokens,
    )
