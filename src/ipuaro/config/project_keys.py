"""Who may decide what: the one list of keys a project's ``.ipuaro.json`` may set.

A repository is data someone else wrote until the user trusts the project, and even then it
may never turn the sandbox off or widen it, choose the model server or the variable whose value
is sent as the API key, move the store or point it at another Redis, auto-apply edits, widen the
command whitelist or allow its own MCP tools. So a project file is checked AFTER it is parsed
(every spelling already mapped to the schema's field names, so ``projectHooks``,
``project_hooks`` and ``extensions.projectHooks`` are one key) against :data:`PROJECT_KEYS`:

- ``HARMLESS`` keys are honoured in any project (what to index, context budgets, plan limits,
  narrowing the policy: more protected paths, more denied commands and MCP tools);
- ``TRUSTED`` keys declare the project's own programs (script tools, hooks, MCP servers); they
  are loaded, but :mod:`ipuaro.extensions.trust` starts them only once the user trusts the
  project's current declarations;
- every other key is dropped, and one notice names those that would have changed something
  (a key holding its default, as ``ipuaro init`` writes them all, is dropped quietly).

The user's own config, ``IPUARO_*`` variables and flags may set anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from ipuaro.config.schema import MCP_REFERENCE

__all__ = [
    "HARMLESS",
    "PROJECT_KEYS",
    "TRUSTED",
    "filter_project_values",
    "mcp_user_variables",
    "project_key_list",
]

Tier = Literal["harmless", "trusted"]
HARMLESS: Tier = "harmless"
TRUSTED: Tier = "trusted"

_ANY = "*"
"""In a path: any name (a script tool's or a server's)."""

_SERVER_KEYS: dict[str, Any] = {
    key: TRUSTED
    for key in (
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "enabled",
        "startup_timeout",
        "timeout",
    )
}

PROJECT_KEYS: dict[str, Any] = {
    "project": {
        "scope": HARMLESS,
        "ignore_patterns": HARMLESS,
        "binary_extensions": HARMLESS,
        "protected_paths": HARMLESS,  # only adds to the defaults (see the loader)
    },
    "context": HARMLESS,
    "llm": {
        "model": HARMLESS,  # a name on the user's own server; the server stays the user's
        "temperature": HARMLESS,
        "tool_format": HARMLESS,
        "system_prompt_language": HARMLESS,
    },
    "watchdog": {"debounce_ms": HARMLESS},
    "commands": {"timeout": HARMLESS},  # the user's commands.maxTimeout still caps it
    "limits": {"max_files_warning": HARMLESS},
    "plan": HARMLESS,
    "blacklist": {"user": HARMLESS},
    "extensions": {"tools": TRUSTED, "hooks": TRUSTED},
    "mcp": {
        "servers": {_ANY: _SERVER_KEYS},
        "deny": HARMLESS,
        "max_tools": HARMLESS,
    },
}
"""Schema field names (snake_case) → a tier for the whole subtree, or a dict of its keys."""


def filter_project_values(
    values: dict[str, Any], defaults: dict[str, Any]
) -> list[tuple[str, ...]]:
    """Drop from ``values`` (a project file's, keys already schema field names) every key the
    list does not name; returns the dropped paths whose value differs from ``defaults`` (the
    schema's defaults by field name), in file order."""
    dropped: list[tuple[str, ...]] = []
    _filter(values, PROJECT_KEYS, (), dropped, defaults)
    return dropped


def _filter(
    values: dict[str, Any],
    allowed: dict[str, Any],
    path: tuple[str, ...],
    dropped: list[Any],
    defaults: Any,
) -> None:
    for key in list(values):
        rule = allowed.get(key, allowed.get(_ANY))
        default = defaults.get(key) if isinstance(defaults, dict) else None
        if rule is None:
            value = values.pop(key)
            # A whole section is named by its keys: "sandbox.profile", not "sandbox".
            if not path and isinstance(value, dict) and value:
                dropped.extend(
                    (key, inner)
                    for inner, item in value.items()
                    if not isinstance(default, dict) or item != default.get(inner)
                )
            elif value != default:
                dropped.append((*path, key))
        elif isinstance(rule, dict) and isinstance(values[key], dict):
            _filter(values[key], rule, (*path, key), dropped, default)
        # A value of the wrong type under an allowed section stays: validation names it.


def mcp_user_variables(layers: list[dict[str, Any]]) -> dict[str, frozenset[str]]:
    """Server name → the ``${NAME}`` references in its ``env``/``headers`` across ``layers``
    (the user's own: never the project's), so a project cannot reach a variable by naming it."""
    found: dict[str, set[str]] = {}
    for values in layers:
        mcp = values.get("mcp")
        servers = mcp.get("servers") if isinstance(mcp, dict) else None
        if not isinstance(servers, dict):
            continue
        for name, server in servers.items():
            if not isinstance(server, dict):
                continue
            for key in ("env", "headers"):
                declared = server.get(key)
                if isinstance(declared, dict):
                    for value in declared.values():
                        if isinstance(value, str):
                            found.setdefault(name, set()).update(MCP_REFERENCE.findall(value))
    return {name: frozenset(names) for name, names in found.items()}


def project_key_list() -> Iterator[tuple[str, Tier]]:
    """Every allowed key as ``("mcp.servers.*.command", "trusted")``, schema field names."""
    yield from _walk(PROJECT_KEYS, ())


def _walk(allowed: dict[str, Any], path: tuple[str, ...]) -> Iterator[tuple[str, Tier]]:
    for key, rule in allowed.items():
        if isinstance(rule, dict):
            yield from _walk(rule, (*path, key))
        else:
            yield ".".join((*path, key)), rule
