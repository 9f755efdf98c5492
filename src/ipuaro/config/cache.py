"""A validated configuration kept between runs, so a command's start skips pydantic's validation.

Loading the configuration validates every layer with pydantic, and the first validation builds
the schema's validators (~30 models): tens of milliseconds on every ``ipuaro`` start, for the
same settings as last time. :func:`load_config_cached` keeps the result of
:func:`ipuaro.config.loader.load_config` in the data dir and serves it again, built with
``model_construct`` (no validation, no validators built), while nothing it was made from has
changed.

Correctness first: the key is a hash of everything the result depends on — the *contents* of the
user config file and of the project's ``.ipuaro.json`` (not their times: an edit within one clock
tick is still seen), their paths, every ``IPUARO_*`` environment variable, the home folder ``~``
stands for, the command's flags, ipuaro's and pydantic's versions and the size and time of the
config package's own source files. Any change is a new key, so a changed config is never served
stale. A result is filed under the bytes the loader itself validated (``load_config(read=...)``), so
a file saved while ipuaro starts is never filed under its previous contents. A config that fails to
load stores nothing, so its error is raised by the loader exactly as without the cache. ``--config
FILE`` (which may be a pipe) and flags that are not plain JSON values bypass the cache. A cache file
that cannot be read, is damaged or cannot be written is ignored: the loader runs instead.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args, get_origin

from ipuaro import __version__
from ipuaro._filecache import code_stamp, store_entry
from ipuaro.config.paths import config_dir

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ipuaro.config.schema import Config

__all__ = ["CACHE_DIR_NAME", "load_config_cached"]

CACHE_DIR_NAME = "config-cache"
"""Folder inside the data dir holding one ``<key>.json`` per configuration seen."""
CACHE_FORMAT = 1
"""Bumped when the stored form changes; part of the key."""
KEEP_ENTRIES = 32
"""Most cache files kept (the oldest go first): one per project and set of flags in use."""
_PROJECT_FILE = ".ipuaro.json"  # the loader's PROJECT_FILE (checked by a test)
_USER_FILE = "config.json"  # the loader's USER_FILE


def load_config_cached(
    project_root: Path | None,
    overrides: Mapping[str, Any] | None = None,
    *,
    config_file: Path | None = None,
) -> Config:
    """:func:`ipuaro.config.loader.load_config` for the current environment, served from the
    cache when every input is as it was; raises the loader's ``ConfigError`` the same way."""
    environ = os.environ
    folder = _data_dir(environ) / CACHE_DIR_NAME
    files = _files(project_root, environ)
    if config_file is None:
        try:
            now = {path: _contents(path) for path in files}
        except Exception:  # refused, unreadable, too large: the loader's error is the one shown
            key = None
        else:
            key = _key(project_root, overrides, environ, now)
        if key is not None and (cached := _read(folder / f"{key}.json")) is not None:
            return cached
    from ipuaro.config.loader import load_config

    validated: dict[Path, bytes | None] = {}
    config = load_config(project_root, overrides, config_file=config_file, read=validated)
    if config_file is None and set(validated) == set(files):
        # keyed by the bytes the loader validated, not those read above: a file that changed
        # in between is stored under its new contents, never the old ones
        key = _key(project_root, overrides, environ, validated)
        if key is not None:
            _write(folder, key, config)
    return config


# --- the key ----------------------------------------------------------------------------------


def _files(project_root: Path | None, environ: Mapping[str, str]) -> list[Path]:
    """The optional files the loader reads, as it names them."""
    override = environ.get("IPUARO_CONFIG_DIR")
    user_dir = Path(override).expanduser() if override else config_dir()
    files = [user_dir / _USER_FILE]
    if project_root is not None:
        files.append(project_root / _PROJECT_FILE)
    return files


def _key(
    project_root: Path | None,
    overrides: Mapping[str, Any] | None,
    environ: Mapping[str, str],
    contents: Mapping[Path, bytes | None],
) -> str | None:
    """The hash of every input of the loader (``contents``: each file's bytes, ``None`` when
    absent), or ``None`` when one cannot be taken exactly."""
    from pydantic.version import VERSION as PYDANTIC_VERSION

    digest = hashlib.sha256()

    def part(label: str, data: bytes) -> None:
        digest.update(f"{label}:{len(data)}:".encode())
        digest.update(data)

    part("format", str(CACHE_FORMAT).encode())
    part("version", f"{__version__} pydantic {PYDANTIC_VERSION}".encode())
    here = Path(__file__).parent
    part("code", str(here).encode())
    try:  # an edited checkout (editable install) changes the schema in place
        part("sources", code_stamp(here, recursive=False).encode())
    except OSError:
        return None
    for path in sorted(contents, key=str):
        data = contents[path]
        part("path", str(path.absolute()).encode())
        part("file", b"\0absent" if data is None else b"\0present" + data)
    part("root", str(project_root).encode())
    # "~" in a path the loader expands (store.path, IPUARO_CONFIG_DIR) is HOME's: not IPUARO_*
    part("home", os.path.expanduser("~").encode())
    variables = sorted((k, v) for k, v in environ.items() if k.startswith("IPUARO_"))
    part("env", json.dumps(variables).encode())
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    try:
        part("flags", json.dumps(given, sort_keys=True, allow_nan=False).encode())
    except (TypeError, ValueError):
        return None  # a Path or an object: its JSON form could stand for another value
    return digest.hexdigest()


def _contents(path: Path) -> bytes | None:
    """The file's bytes, ``None`` when it does not exist; raises as reading it raises."""
    from ipuaro.domain.repofiles import CONFIG_FILE_LIMIT, read_repo_bytes

    try:
        return read_repo_bytes(path, CONFIG_FILE_LIMIT)
    except FileNotFoundError:
        return None


def _data_dir(environ: Mapping[str, str]) -> Path:
    # store.naming.data_dir(), which config (below store) may not import
    override = environ.get("IPUARO_DATA_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("ipuaro", appauthor=False))


# --- the stored form --------------------------------------------------------------------------


def _read(path: Path) -> Config | None:
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    from ipuaro.config.schema import Config

    try:
        config = _construct(Config, stored)
    except Exception:  # written by another version of the code under the same key: rebuild
        return None
    return config if isinstance(config, Config) else None


def _write(folder: Path, key: str, config: Config) -> None:
    try:
        text = json.dumps(_dump(config), allow_nan=False)
    except (TypeError, ValueError):  # a value the stored form cannot carry exactly
        return
    store_entry(folder, key, text, KEEP_ENTRIES)  # read-only: validated again next start


def _dump(model: BaseModel) -> dict[str, Any]:
    """Every field (those excluded from ``model_dump`` too), which fields were set, and the
    private attributes: what ``_construct`` needs to rebuild an equal object."""
    from pydantic import BaseModel

    fields: dict[str, Any] = {}
    for name in type(model).model_fields:
        fields[name] = _dump_value(getattr(model, name), BaseModel)
    private: dict[str, Any] = {}
    for name, value in (model.__pydantic_private__ or {}).items():
        if isinstance(value, frozenset):
            private[name] = {"frozenset": sorted(value)}
        elif isinstance(value, list):
            private[name] = {"list": value}
        else:
            raise TypeError(f"private attribute {name}: {type(value).__name__}")
    return {"fields": fields, "set": sorted(model.model_fields_set), "private": private}


def _dump_value(value: Any, base: type[BaseModel]) -> Any:
    if isinstance(value, base):
        return _dump(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {key: _dump_value(item, base) for key, item in value.items()}
    if isinstance(value, list):
        return [_dump_value(item, base) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot store a {type(value).__name__}")


def _construct(model: type[BaseModel], stored: Mapping[str, Any]) -> BaseModel:
    values = {
        name: _construct_value(model.model_fields[name].annotation, value)
        for name, value in stored["fields"].items()
    }
    if set(values) != set(model.model_fields):
        raise ValueError(f"{model.__name__}: the schema gained or lost a field")
    built = model.model_construct(_fields_set=set(stored["set"]), **values)
    for name, value in stored["private"].items():
        if name not in (model.__private_attributes__ or {}):
            raise ValueError(f"{model.__name__}: no private attribute {name}")
        kind, items = next(iter(value.items()))
        setattr(built, name, frozenset(items) if kind == "frozenset" else list(items))
    return built


def _construct_value(annotation: Any, value: Any) -> Any:
    """A stored value back in its field's Python type: sections as models, paths as ``Path``."""
    from pydantic import BaseModel

    if value is None:
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _construct(annotation, value)
    origin = get_origin(annotation)
    arguments = get_args(annotation)
    if annotation is Path or (origin is not None and Path in arguments and isinstance(value, str)):
        return Path(value)
    if origin is dict and len(arguments) == 2:
        return {key: _construct_value(arguments[1], item) for key, item in value.items()}
    if origin is list and arguments:
        return [_construct_value(arguments[0], item) for item in value]
    return value
