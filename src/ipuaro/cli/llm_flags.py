"""``--provider``, ``--base-url``, ``--api-key-env``, ``--context-window``: the model server
flags users expect (aider, Codex CLI), shared by ``ipuaro`` and ``ipuaro run``.

The options store their values in the click context instead of the command's arguments, so a
command gains them with one decorator and reads them with :func:`llm_overrides`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

_KEYS = {
    "provider": "llm.provider",
    "base_url": "llm.baseUrl",
    "api_key_env": "llm.apiKeyEnv",
    "context_window": "llm.contextWindow",
}


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    if value is not None and param.name is not None:
        ctx.meta.setdefault("ipuaro.llm_flags", {})[_KEYS[param.name]] = value


def _flags(command: F) -> F:
    options = [
        click.option(
            "--provider",
            type=click.Choice(["ollama", "openai"]),
            help="Model server protocol (llm.provider).",
        ),
        click.option(
            "--base-url",
            metavar="URL",
            help="Model server URL, e.g. http://localhost:8080/v1 (llm.baseUrl).",
        ),
        click.option(
            "--api-key-env",
            metavar="NAME",
            help="Environment variable holding the API key (llm.apiKeyEnv).",
        ),
        click.option(
            "--context-window",
            type=click.IntRange(min=512),
            metavar="TOKENS",
            help="Context window for the session (llm.contextWindow; default: the server's).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _with_callbacks(command: F) -> F:
    for param in getattr(command, "__click_params__", []):
        if param.name in _KEYS:
            param.callback = _remember
            param.expose_value = False
    return command


def llm_options(command: F) -> F:
    """Add the four flags to a click command function (before ``@click.command``)."""
    return _with_callbacks(_flags(command))


def llm_overrides() -> dict[str, Any]:
    """The flags given to the running command, as dotted config keys."""
    flags: dict[str, Any] = click.get_current_context().meta.get("ipuaro.llm_flags", {})
    return dict(flags)
