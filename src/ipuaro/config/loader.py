"""Layered configuration: defaults < user file < project file < ``IPUARO_*`` env < CLI flags.

Each layer is read, its keys are mapped to the schema's field names (camelCase or snake_case in
files; any case in environment variables) and validated on its own, so an error always names the
layer it came from: the file, the environment variable or the command line. Then the layers are
deep-merged (objects merge key by key, lists and scalars replace) and validated once more.

A project's ``.ipuaro.json`` is repository content: after it is mapped to field names, every
key that :mod:`ipuaro.config.project_keys` does not list is dropped, and one notice (kept in
:attr:`Config.notices`) names them.

Every problem becomes a :class:`ConfigError` whose text is one line a user can act on.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_camel

from ipuaro.config.describe import (
    describe_error,
    display_path,
    json_kind,
    keyed_section_type,
    section_type,
)
from ipuaro.config.paths import config_dir
from ipuaro.config.project_keys import filter_project_values, mcp_user_variables
from ipuaro.config.sane import check_values
from ipuaro.config.schema import Config, ProjectConfig
from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.repofiles import CONFIG_FILE_LIMIT, RepoFileRefused, read_repo_bytes

__all__ = [
    "CONCEPT_KEYS",
    "PROJECT_FILE",
    "USER_FILE",
    "ConfigError",
    "default_config_json",
    "find_project_root",
    "load_config",
    "project_file_values",
]

PROJECT_FILE = ".ipuaro.json"
"""Project configuration file, at the project root."""
USER_FILE = "config.json"
"""User configuration file, inside ``config_dir()``."""

ENV_PREFIX = "IPUARO_"

CONCEPT_KEYS: dict[str, tuple[str, ...]] = {
    "redis": ("host", "port", "db"),
    "llm": (
        "provider",
        "model",
        "contextWindow",
        "temperature",
        "systemPromptLanguage",
        "toolFormat",
        "autoRetry",
        "cache",
    ),
    "project": ("scope", "ignorePatterns", "binaryExtensions"),
    "session": ("persistIndefinitely", "maxHistoryMessages", "saveInputHistory"),
    "context": ("systemPromptTokens", "maxContextUsage", "autoCompressAt", "compressionMethod"),
    "watchdog": ("debounceMs",),
    "commands": ("timeout",),
    "undo": ("stackSize",),
    "edit": (
        "alwaysConfirm",
        "autoApply",
        "showDiff",
        "diffFormat",
        "syntaxHighlight",
        "showDescription",
        "wrapLongLines",
    ),
    "display": ("showStats", "showToolCalls", "theme", "bellOnComplete", "progressBar"),
    "autocomplete": ("source",),
    "input": ("multiline",),
    "limits": ("maxFilesWarning", "encoding"),
}
"""The keys of the concept's ``config/default.json`` (its two ``llm`` objects merged)."""


class ConfigError(IpuaroError):
    """A configuration problem; ``str(error)`` is one line naming the source, key and fix."""


@dataclass
class _Layer:
    """One source of settings, already mapped to schema field names."""

    source: str
    values: dict[str, Any]
    # Environment layers remember which variable set which key, for error messages.
    origins: dict[tuple[str, ...], str] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)


def load_config(
    project_root: Path | None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    config_file: Path | None = None,
) -> Config:
    """Build the effective configuration for a project.

    ``overrides`` are CLI flags: dotted paths (``{"llm.model": "x"}``) or nested dicts; a value of
    ``None`` means "flag not given" and is skipped. ``env`` defaults to ``os.environ``.
    ``config_file`` is an extra file named on the command line, applied just below ``overrides``.
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    optional_files = [_user_config_dir(environ) / USER_FILE]
    if project_root is not None:
        optional_files.append(project_root / PROJECT_FILE)
    layers = [layer for path in optional_files if (layer := _file_layer(path, required=False))]
    if (
        project_root is not None
        and layers
        and layers[-1].source == str(project_root / PROJECT_FILE)
    ):
        _restrict_project_layer(layers[-1])
    layers.append(_env_layer(environ))
    if config_file is not None and (layer := _file_layer(config_file, required=True, flag=True)):
        layers.append(layer)
    if overrides:
        layers.append(_override_layer(overrides))

    merged: dict[str, Any] = {}
    users: list[dict[str, Any]] = []
    for layer in layers:
        if project_root is None or layer.source != str(project_root / PROJECT_FILE):
            _reserve_project_keys(layer)
            users.append(layer.values)
        _validate(layer)
        _deep_merge(merged, layer.values)
    config = _validate(_Layer("the merged configuration", merged))
    config.notices.extend(notice for layer in layers for notice in layer.notices)
    named = mcp_user_variables(users)  # before the merge shares their dicts: read them now
    for name, server in config.mcp.servers.items():
        server.name_user_variables(named.get(name, frozenset()))
    return config


def project_file_values(project_root: Path) -> dict[str, Any]:
    """What the project's ``.ipuaro.json`` sets after the list of who may decide what: field
    names, its ``extensions.tools``/``hooks`` as ``project_tools``/``project_hooks``, its MCP
    servers marked as the project's. Empty when there is no file; ``ConfigError`` as
    :func:`load_config` raises it."""
    layer = _file_layer(project_root / PROJECT_FILE, required=False)
    if layer is None:
        return {}
    _restrict_project_layer(layer)
    return layer.values


def default_config_json() -> str:
    """What ``ipuaro init`` writes: the concept's keys with this version's defaults, camelCase."""
    defaults = Config().model_dump(mode="json", by_alias=True)
    chosen = {
        section: {key: defaults[section][key] for key in keys}
        for section, keys in CONCEPT_KEYS.items()
    }
    return json.dumps(chosen, indent=2, ensure_ascii=False) + "\n"


def find_project_root(start: Path) -> Path:
    """The nearest directory at or above ``start`` holding ``.ipuaro.json`` or ``.git``."""
    start = start.expanduser().resolve()
    if not start.is_dir():
        start = start.parent
    for candidate in (start, *start.parents):
        if (candidate / PROJECT_FILE).is_file() or (candidate / ".git").exists():
            return candidate
    return start


# --- reading layers ---------------------------------------------------------------------------


def _user_config_dir(environ: Mapping[str, str]) -> Path:
    # config_dir() reads os.environ; honour an explicit env mapping the same way.
    override = environ.get("IPUARO_CONFIG_DIR")
    return Path(override).expanduser() if override else config_dir()


class _DuplicateKey(IpuaroError, ValueError):
    pass


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json.loads keeps the last of two equal keys; the concept's own default.json has two "llm"
    # objects, and a silently dropped half of a config is worse than an error.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _restrict_project_layer(layer: _Layer) -> None:
    """A project's ``.ipuaro.json`` is repository content, and repository content never widens
    the policy: only the keys of the list stay (see :mod:`ipuaro.config.project_keys`), and its
    protected paths add to the defaults."""
    dropped = filter_project_values(layer.values, Config().model_dump())
    if dropped:
        keys = ", ".join(_dropped_key(path) for path in dropped[:16])
        them = "them" if len(dropped) > 1 else "it"
        more = f" and {len(dropped) - 16} more" if len(dropped) > 16 else ""
        layer.notices.append(
            f"{layer.source}: ignored {keys}{more}: a project file may not set {them}; set "
            f"{them} in your user config ({USER_FILE} in the ipuaro config dir) or with a flag "
            "(see docs/security.md)"
        )
    _restrict_project_mcp(layer)
    project = layer.values.get("project")
    if isinstance(project, dict) and isinstance(project.get("protected_paths"), list):
        defaults = ProjectConfig().protected_paths
        # A negation (``!.env``) would un-protect a default: not from repository content.
        extra = [
            p for p in project["protected_paths"] if p not in defaults and not p.startswith("!")
        ]
        project["protected_paths"] = [*defaults, *extra]
    # Script tools and hooks run code: from repository content they stay apart (and off until
    # the user trusts the project), and a user's own of the same name keeps precedence.
    extensions = layer.values.get("extensions")
    if isinstance(extensions, dict):
        for key in ("tools", "hooks"):
            if key in extensions:
                extensions[f"project_{key}"] = extensions.pop(key)


def _dropped_key(path: tuple[str, ...]) -> str:
    if path[-1] in ("project_tools", "project_hooks"):  # display_path shows these as written
        return f"{display_path(Config, path[:-1])}.{to_camel(path[-1])}"
    return display_path(Config, path)


def _reserve_project_keys(layer: _Layer) -> None:
    extensions = layer.values.get("extensions")
    if not isinstance(extensions, dict):
        return
    for key in ("tools", "hooks"):
        if f"project_{key}" in extensions:
            raise ConfigError(
                f"{layer.source}: extensions.project{key.capitalize()}: set by ipuaro from a "
                f"project's {PROJECT_FILE}; write extensions.{key} instead"
            )


def _restrict_project_mcp(layer: _Layer) -> None:
    """A project may declare MCP servers (they start only once the project is trusted, always
    sandboxed); a server it declares or changes is marked as the project's, so a user-declared
    server it edits is held back too."""
    mcp = layer.values.get("mcp")
    if not isinstance(mcp, dict):
        return
    servers = mcp.get("servers")
    if isinstance(servers, dict):
        for server in servers.values():
            if isinstance(server, dict):
                server["declared_in"] = "project"


def _file_layer(path: Path, *, required: bool, flag: bool = False) -> _Layer | None:
    source = str(path)
    try:
        # --config FILE is the user's word: it may be a pipe (``--config <(…)``).
        text = read_repo_bytes(path, CONFIG_FILE_LIMIT, streams=flag).decode("utf-8")
    except FileNotFoundError:
        if required:
            raise ConfigError(f"{source}: config file not found") from None
        return None
    except RepoFileRefused as error:
        raise ConfigError(str(error)) from None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ConfigError(
            f"{source}: cannot read config file ({reason}); fix its permissions or remove it"
        ) from None
    try:
        raw = json.loads(text, object_pairs_hook=_reject_duplicates)
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"{source}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"
        ) from None
    except _DuplicateKey as error:
        raise ConfigError(
            f"{source}: key {json.dumps(error.args[0])} appears twice in one object; "
            "merge them into one"
        ) from None
    except RecursionError:
        raise ConfigError(
            f"{source}: nested too deeply to be a config file; fix the file"
        ) from None
    except ValueError as error:  # a number of thousands of digits
        raise ConfigError(f"{source}: unusable number ({error}); write a shorter number") from None
    if (problem := check_values(raw, source)) is not None:
        raise ConfigError(problem)
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{source}: expected a JSON object at the top level, got {json_kind(raw)}"
        )
    values = _canonical(raw, Config, (), source, loose=False)
    _anchor_store_path(values, path.absolute().parent)
    return _Layer(source, values)


def _env_layer(environ: Mapping[str, str]) -> _Layer:
    layer = _Layer("the environment", {})
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX):
            continue
        parts = name[len(ENV_PREFIX) :].split("__")
        # A variable without "__" is config only if it names a whole section
        # (IPUARO_LLM='{"model": "x"}'); IPUARO_DATA_DIR, IPUARO_CONFIG_DIR, IPUARO_TRACE and
        # friends are settings of their own, not config keys.
        if len(parts) == 1 and _match_field(Config, parts[0], loose=True) is None:
            continue
        source = f"environment variable {name}"
        if any(not part for part in parts):
            raise ConfigError(f"{source}: empty key segment; write IPUARO_SECTION__KEY")
        nested: dict[str, Any] = {}
        cursor = nested
        for part in parts[:-1]:
            cursor = cursor.setdefault(part, {})
        cursor[parts[-1]] = _parse_env_value(environ[name])
        canonical = _canonical(nested, Config, (), source, loose=True)
        if (problem := check_values(canonical, source)) is not None:
            raise ConfigError(problem)
        layer.origins[_leaf_path(canonical)] = source
        _deep_merge(layer.values, canonical)
    return layer


def _parse_env_value(raw: str) -> Any:
    """JSON when it parses; numbers and booleans stay text so the key's own type decides.

    pydantic turns "500" into 500 for an int key and "true" into True for a bool key, and keeps
    "123" a string for a string key such as ``llm.model``.
    """
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    if isinstance(parsed, bool | int | float):
        return raw
    return parsed


def _override_layer(overrides: Mapping[str, Any]) -> _Layer:
    nested: dict[str, Any] = {}
    for key, value in overrides.items():
        if value is None:
            continue
        parts = key.split(".")
        cursor = nested
        for part in parts[:-1]:
            cursor = cursor.setdefault(part, {})
        if isinstance(value, Mapping) and isinstance(cursor.get(parts[-1]), dict):
            _deep_merge(cursor[parts[-1]], dict(value))
        else:
            cursor[parts[-1]] = value
    if (problem := check_values(nested, "the command line")) is not None:
        raise ConfigError(problem)
    return _Layer("the command line", _canonical(nested, Config, (), "the command line", True))


def _leaf_path(values: Mapping[str, Any]) -> tuple[str, ...]:
    path: tuple[str, ...] = ()
    current: Any = values
    while isinstance(current, dict) and len(current) == 1:
        key = next(iter(current))
        path += (key,)
        current = current[key]
    return path


def _anchor_store_path(values: dict[str, Any], base: Path) -> None:
    # A relative store.path in a config file means "relative to that file", not to the cwd.
    store = values.get("store")
    if isinstance(store, dict) and isinstance(store.get("path"), str):
        path = Path(store["path"]).expanduser()
        store["path"] = str(path if path.is_absolute() else base / path)


# --- mapping keys to the schema ------------------------------------------------------------


def _normalise(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


def _match_field(model: type[BaseModel], key: str, *, loose: bool) -> str | None:
    for name, info in model.model_fields.items():
        if key in (name, info.alias):
            return name
        if loose and _normalise(key) == _normalise(name):
            return name
    return None


def _canonical(
    raw: Mapping[str, Any],
    model: type[BaseModel],
    path: tuple[str, ...],
    source: str,
    loose: bool,
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in raw.items():
        name = _match_field(model, key, loose=loose)
        if name is None:
            shown = display_path(Config, path)
            full = f"{shown}.{key}" if shown else key
            aliases = [info.alias or n for n, info in model.model_fields.items()]
            by_form = {(_normalise(a) if loose else a): a for a in aliases}
            wanted = _normalise(key) if loose else key
            close = [by_form[m] for m in difflib.get_close_matches(wanted, list(by_form), 1, 0.6)]
            prefix = f"{shown}." if shown else ""
            hint = (
                f"did you mean {prefix}{close[0]}?"
                if close
                else "known keys: " + ", ".join(prefix + alias for alias in aliases)
            )
            raise ConfigError(f"{source}: unknown key {full} ({hint})")
        annotation = model.model_fields[name].annotation
        section = section_type(annotation)
        if section is not None and isinstance(value, Mapping):
            value = _canonical(value, section, (*path, name), source, loose)
        listed = section_type(get_args(annotation)[0]) if get_origin(annotation) is list else None
        if listed is not None and isinstance(value, list):
            value = [
                _canonical(item, listed, (*path, name), source, loose)
                if isinstance(item, Mapping)
                else item
                for item in value
            ]
        items = keyed_section_type(annotation)
        if items is not None and isinstance(value, Mapping):
            value = {
                key: _canonical(item, items, (*path, name, key), source, loose)
                if isinstance(item, Mapping)
                else item
                for key, item in value.items()
            }
        result[name] = value
    return result


def _deep_merge(target: dict[str, Any], update: Mapping[str, Any]) -> None:
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            _deep_merge(target[key], value)
        elif isinstance(value, Mapping):
            target[key] = {}
            _deep_merge(target[key], value)
        else:
            target[key] = value


# --- validation -----------------------------------------------------------------------------


def _validate(layer: _Layer) -> Config:
    try:
        return Config.model_validate(layer.values)
    except ValidationError as error:
        raise ConfigError(describe_error(layer.source, layer.origins, error)) from None
