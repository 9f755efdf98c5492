"""What a server process gets from ipuaro's environment: a minimal base and what its config
declares — never the rest (API keys, tokens, the user's shell state).

``${NAME}`` in a declared value is taken from ipuaro's environment. In a server the user
declared, every reference expands (the user wrote them all). In a server the project declared
or changed (``.ipuaro.json``), only a variable the USER's own config names for that server
expands — a project naming ``${AWS_SECRET_ACCESS_KEY}`` gets nothing — and even then names
that look like credentials (``*_TOKEN``, ``*_API_KEY``, ``*_SECRET``, the model's key) stay
empty, as the project may have pointed the server elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ipuaro.config.schema import MCP_REFERENCE, McpServerConfig
from ipuaro.security.process.runner import ALWAYS_HIDDEN_ENV, SECRET_ENV_SUFFIXES

BASE_NAMES = ("HOME", "PATH", "LANG", "LC_ALL", "LC_CTYPE", "USER", "LOGNAME", "SHELL", "TERM")
"""Passed to every stdio server when set: enough to find programs and write in the user's
home (``uvx``/``npx`` caches), nothing that grants access."""


def server_environment(config: McpServerConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a stdio server process."""
    env = {name: environ[name] for name in BASE_NAMES if name in environ}
    for name, value in config.env.items():
        env[name] = expand(value, environ, _project_allows(config))
    return env


def server_headers(config: McpServerConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """HTTP headers for a streamable HTTP server, references expanded."""
    allowed = _project_allows(config)
    return {name: expand(value, environ, allowed) for name, value in config.headers.items()}


def _project_allows(config: McpServerConfig) -> frozenset[str] | None:
    """None for the user's own server; else the names the user's config wrote for it."""
    return config.user_variables if config.declared_in == "project" else None


def expand(value: str, environ: Mapping[str, str], allowed: frozenset[str] | None) -> str:
    """``${NAME}`` → ipuaro's ``NAME``, empty when unset. ``allowed`` is None for the user's
    own server; for a project's, the names the user's config wrote for it: any other name,
    and any secret-looking one, is empty."""

    def lookup(match: re.Match[str]) -> str:
        name = match.group(1)
        if allowed is not None and (name not in allowed or is_secret_name(name)):
            return ""
        return environ.get(name, "")

    return MCP_REFERENCE.sub(lookup, value)


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return upper in ALWAYS_HIDDEN_ENV or upper.endswith(SECRET_ENV_SUFFIXES)
