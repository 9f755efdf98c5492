"""What a server process gets from ipuaro's environment: a minimal base and what its config
declares — never the rest (API keys, tokens, the user's shell state).

``${NAME}`` in a declared value is taken from ipuaro's environment. A server the project
declared (``.ipuaro.json``) cannot reach a secret that way: names that look like credentials
(``*_TOKEN``, ``*_API_KEY``, ``*_SECRET``, the model's key) expand to nothing there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ipuaro.config.schema import McpServerConfig
from ipuaro.security.runner import ALWAYS_HIDDEN_ENV, SECRET_ENV_SUFFIXES

BASE_NAMES = ("HOME", "PATH", "LANG", "LC_ALL", "LC_CTYPE", "USER", "LOGNAME", "SHELL", "TERM")
"""Passed to every stdio server when set: enough to find programs and write in the user's
home (``uvx``/``npx`` caches), nothing that grants access."""

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def server_environment(config: McpServerConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a stdio server process."""
    env = {name: environ[name] for name in BASE_NAMES if name in environ}
    for name, value in config.env.items():
        env[name] = expand(value, environ, project=config.declared_in == "project")
    return env


def server_headers(config: McpServerConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """HTTP headers for a streamable HTTP server, references expanded."""
    project = config.declared_in == "project"
    return {name: expand(value, environ, project=project) for name, value in config.headers.items()}


def expand(value: str, environ: Mapping[str, str], *, project: bool) -> str:
    """``${NAME}`` → ipuaro's ``NAME`` (empty when unset, or a secret and ``project``)."""

    def lookup(match: re.Match[str]) -> str:
        name = match.group(1)
        if project and is_secret_name(name):
            return ""
        return environ.get(name, "")

    return _REFERENCE.sub(lookup, value)


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return upper in ALWAYS_HIDDEN_ENV or upper.endswith(SECRET_ENV_SUFFIXES)
