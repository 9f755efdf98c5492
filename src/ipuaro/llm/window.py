"""Which context window a session runs with.

Ollama truncates a prompt silently to its default context unless ``num_ctx`` is sent, and it
reloads the model whenever ``num_ctx`` changes, so the value is chosen once per session:

- served: an OpenAI-compatible server allocated its window at start-up
  (:mod:`ipuaro.llm.served`); nothing larger can be used, ``llm.contextWindow`` may ask less.
  The server's window wins over a pinned one too: a session made at 8K and resumed on a server
  started with 4K uses 4K (an 8K prompt would be refused), one made at 4K and resumed at 8K uses
  8K; either change is said at start;
- pinned (a resumed session, a CLI flag): used as is;
- configured (``llm.contextWindow``): used, but never above what the model was trained for —
  a 128K window on a 32K model only costs memory;
- otherwise the model's own size, from ``/api/show`` (or ``/v1/models`` where it is reported),
  capped by memory: Ollama allocates the KV cache for the whole ``num_ctx`` (many GB for a 7B
  model at 128K), so without a setting the window follows the machine's RAM
  (:func:`memory_cap`) and the user is told which window is used, why, and how to choose;
- nothing known: a conservative default.
"""

from __future__ import annotations

import os

from ipuaro.llm.protocol import MIN_COMFORTABLE_CONTEXT, ContextWindow

DEFAULT_CONTEXT_WINDOW = 8192

GIB = 1 << 30
MEMORY_STEPS = ((16 * GIB, 32_768), (8 * GIB, 16_384))
"""RAM → largest window chosen without a setting. A 7B model's KV cache at 32K tokens takes
1.8 GB with grouped-query attention (Qwen2.5) and 16 GB without (Llama 2)."""


def memory_cap(total_memory: int | None = None) -> int:
    """The largest window chosen for a model without ``llm.contextWindow``, by installed RAM."""
    total = total_memory if total_memory is not None else _total_memory()
    for at_least, window in MEMORY_STEPS:
        if total is not None and total >= at_least:
            return window
    return DEFAULT_CONTEXT_WINDOW


def _total_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None


def choose_context_window(
    *,
    pinned: int | None,
    requested: int | None,
    model_max: int | None,
    served: int | None = None,
    allocates: bool = True,
    total_memory: int | None = None,
) -> ContextWindow:
    """``served``: the window the server runs with (it cannot be exceeded, and it wins over
    ``pinned``: the session's window from another server or start-up); ``allocates``: the
    window chosen here is allocated by the server (Ollama's ``num_ctx``), so memory caps it."""
    if served is not None:
        chosen = _served(requested, served)
        if pinned is None or pinned == chosen.tokens:
            return chosen
        change = (
            f"this session was made with a context window of {pinned:,} tokens; the server now "
            f"serves {served:,}: using {chosen.tokens:,}"
        )
        warning = f"{change}; {chosen.warning}" if chosen.warning else change
        return ContextWindow(chosen.tokens, chosen.source, served, warning)
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
        cap = memory_cap(total_memory) if allocates else model_max
        if model_max <= cap:
            return ContextWindow(model_max, "model", model_max, _warning(model_max, model_max))
        memory = total_memory if total_memory is not None else _total_memory()
        ram = f"{memory / GIB:.0f} GB of RAM" if memory else "unknown RAM"
        why = (
            f"context window {cap:,} tokens of the model's {model_max:,}: a larger window "
            f"allocates more memory for the KV cache ({ram} here); set llm.contextWindow "
            "(or --context-window) to choose"
        )
        return ContextWindow(cap, "memory", model_max, _warning(cap, model_max) or why)
    return ContextWindow(
        DEFAULT_CONTEXT_WINDOW,
        "default",
        None,
        _warning(DEFAULT_CONTEXT_WINDOW, None)
        or "the model's context size is unknown; set llm.contextWindow",
    )


def _served(requested: int | None, served: int) -> ContextWindow:
    if requested is not None and requested <= served:
        return ContextWindow(requested, "config", served, _warning(requested, served))
    above = (
        f"llm.contextWindow {requested:,} is above the {served:,} tokens the server was started "
        f"with; using {served:,} (restart the server with a larger context to use more)"
        if requested is not None
        else None
    )
    return ContextWindow(served, "server", served, _warning(served, None, served=True) or above)


def _warning(tokens: int, model_max: int | None, *, served: bool = False) -> str | None:
    if tokens >= MIN_COMFORTABLE_CONTEXT:
        return None
    if served:
        hint = "start the server with a larger context (llama.cpp -c, vLLM --max-model-len)"
    elif model_max is not None and model_max > tokens:
        hint = f"raise llm.contextWindow (the model supports {model_max:,})"
    else:
        hint = "use a model with a larger context"
    return (
        f"the context window is {tokens:,} tokens; below {MIN_COMFORTABLE_CONTEXT:,} the agent "
        f"has little room for code — {hint}"
    )
