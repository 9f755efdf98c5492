"""Which context window a session runs with.

Ollama truncates a prompt silently to its default context unless ``num_ctx`` is sent, and it
reloads the model whenever ``num_ctx`` changes, so the value is chosen once per session:

- pinned (a resumed session, a CLI flag): used as is;
- configured (``llm.contextWindow``): used, but never above what the model was trained for —
  a 128K window on a 32K model only costs memory;
- otherwise the model's own size, from ``/api/show`` (or ``/v1/models`` where it is reported);
- nothing known: a conservative default.
"""

from __future__ import annotations

from ipuaro.llm.protocol import MIN_COMFORTABLE_CONTEXT, ContextWindow

DEFAULT_CONTEXT_WINDOW = 8192


def choose_context_window(
    *, pinned: int | None, requested: int | None, model_max: int | None
) -> ContextWindow:
    if pinned is not None:
        return ContextWindow(pinned, "pinned", model_max, _warning(pinned, model_max))
    if requested is not None and model_max is not None:
        tokens = min(requested, model_max)
        if requested <= model_max:
            return ContextWindow(tokens, "config", model_max, _warning(tokens, model_max))
        return ContextWindow(tokens, "model", model_max, _warning(tokens, model_max))
    if requested is not None:
        return ContextWindow(requested, "config", None, _warning(requested, None))
    if model_max is not None:
        return ContextWindow(model_max, "model", model_max, _warning(model_max, model_max))
    return ContextWindow(
        DEFAULT_CONTEXT_WINDOW,
        "default",
        None,
        _warning(DEFAULT_CONTEXT_WINDOW, None)
        or "the model's context size is unknown; set llm.contextWindow",
    )


def _warning(tokens: int, model_max: int | None) -> str | None:
    if tokens >= MIN_COMFORTABLE_CONTEXT:
        return None
    hint = (
        f"raise llm.contextWindow (the model supports {model_max:,})"
        if model_max is not None and model_max > tokens
        else "use a model with a larger context"
    )
    return (
        f"the context window is {tokens:,} tokens; below {MIN_COMFORTABLE_CONTEXT:,} the agent "
        f"has little room for code — {hint}"
    )
