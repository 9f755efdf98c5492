"""Which context window a session gets, and when the user is warned."""

from __future__ import annotations

from ipuaro.llm.window import DEFAULT_CONTEXT_WINDOW, choose_context_window


def test_configured_window_is_capped_to_the_model() -> None:
    window = choose_context_window(pinned=None, requested=128_000, model_max=32_768)
    assert (window.tokens, window.source, window.warning) == (32_768, "model", None)


def test_configured_window_below_the_model_wins() -> None:
    window = choose_context_window(pinned=None, requested=24_000, model_max=32_768)
    assert (window.tokens, window.source) == (24_000, "config")


def test_pinned_window_is_never_changed() -> None:
    window = choose_context_window(pinned=65_536, requested=8_000, model_max=32_768)
    assert (window.tokens, window.source) == (65_536, "pinned")


def test_small_windows_warn_with_what_to_do() -> None:
    window = choose_context_window(pinned=None, requested=8_192, model_max=32_768)
    assert window.warning == (
        "the context window is 8,192 tokens; below 16,384 the agent has little room for code "
        "— raise llm.contextWindow (the model supports 32,768)"
    )
    tiny_model = choose_context_window(pinned=None, requested=None, model_max=4_096)
    assert (
        tiny_model.warning is not None and "use a model with a larger context" in tiny_model.warning
    )


def test_nothing_known_uses_a_conservative_default_and_says_so() -> None:
    window = choose_context_window(pinned=None, requested=None, model_max=None)
    assert (window.tokens, window.source) == (DEFAULT_CONTEXT_WINDOW, "default")
    assert window.warning is not None
