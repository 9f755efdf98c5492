"""The two files the memory lives in, read without ever failing and written atomically.

- the user's ``preferences.json`` in their config folder (``IPUARO_CONFIG_DIR`` or the
  platform's user config dir, as for ``config.json``): the ``user.*`` keys;
- the project's ``.ipuaro/project.json``, shared through the repository: the ``project.*`` keys.

Each file is a JSON object of the keys without their scope (``{"default_test_command":
"pytest -q"}``); the dotted spelling (``"project.default_test_command"``) and the older short
names of project.json (``test``, ``lint``, ``format``, ``build``) are read too.

Reading never raises: what cannot be used becomes a problem naming the file, the key and the
fix, and the rest of the file still counts. Writing changes only the keys it is given and keeps
everything else in the file (keys it does not know included); it refuses a file it cannot read
(:class:`MemoryFileError`) rather than replace it, and goes through a temp file and
``os.replace``, so a kill leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.repofiles import RepoFileRefused, read_repo_bytes
from ipuaro.domain.tempfiles import is_temp_name, temp_path, writer_alive
from ipuaro.memory.keys import (
    InvalidValue,
    MemoryValue,
    Scope,
    check_value,
    key_list,
    spec_for,
    to_json,
)

USER_FILE = "preferences.json"
"""The user's memory file, inside the config folder (beside ``config.json``)."""
PROJECT_FILE = ".ipuaro/project.json"
"""The project's memory file, relative to the project root."""
LEGACY_NAMES = {
    "test": "default_test_command",
    "lint": "default_lint_command",
    "format": "default_format_command",
    "build": "build_command",
}
"""project.json's older short names, still read (and replaced by the full name on write)."""
MAX_FILE_BYTES = 256 * 1024


class MemoryFileError(IpuaroError):
    """A memory file cannot be written; the message names the file and the fix."""


def user_file(environ: Mapping[str, str] | None = None) -> Path:
    """``preferences.json`` in the user config dir (``IPUARO_CONFIG_DIR`` of ``environ`` when
    given, else of the process)."""
    override = (os.environ if environ is None else environ).get("IPUARO_CONFIG_DIR")
    if override:
        return Path(override).expanduser() / USER_FILE
    from ipuaro.config.paths import config_dir

    return config_dir() / USER_FILE


def project_file(root: Path) -> Path:
    return root / PROJECT_FILE


@dataclass(frozen=True)
class Layer:
    """One file's usable values (dotted key → value) and what was wrong with the rest."""

    scope: Scope
    path: Path
    label: str
    """How messages name the file (the project file relative to the root)."""
    values: dict[str, MemoryValue]
    problems: tuple[str, ...] = ()
    exists: bool = False
    readable: bool = True
    """False when the file exists but is not a JSON object we can read: it is never written."""


def label_for(scope: Scope, path: Path) -> str:
    return PROJECT_FILE if scope == "project" else str(path)


def _load_raw(path: Path, label: str) -> tuple[dict[str, Any] | None, str | None]:
    """(the file's object, None) or (None, the problem); ``({}, None)`` when it is absent."""
    try:
        # A regular file only, read up to the cap: a link to /dev/zero or a FIFO in a cloned
        # repository must not grow or hang the reader.
        raw = read_repo_bytes(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        return {}, None
    except RepoFileRefused as error:
        return None, f"{label}: {str(error).split(': ', 1)[-1]}"
    except OSError as error:
        return None, f"{label}: cannot be read ({error.strerror or error}); check its permissions"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, f"{label}: cannot be read ({error}); it must be a UTF-8 JSON file"
    if not text.strip():
        return {}, None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, (
            f"{label}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); "
            "fix it or move it away — ipuaro leaves the file as it is until it reads"
        )
    except (ValueError, RecursionError):
        return None, f"{label}: a number too long or nesting too deep to read; fix the file"
    if not isinstance(data, dict):
        return None, f'{label}: must be a JSON object of keys and values, like {{"key": "value"}}'
    return data, None


def _file_key(scope: Scope, raw_key: str) -> tuple[str | None, str | None]:
    """(the dotted key this file key means, None) or (None, the problem)."""
    name = raw_key.strip()
    if scope == "project" and name.lower() in LEGACY_NAMES:
        name = LEGACY_NAMES[name.lower()]
    spec = spec_for(name)
    if spec is None:
        return None, (
            f"unknown key {raw_key!r}; remove or rename it (the {scope} keys are: "
            f"{key_list(scope)})"
        )
    if spec.scope != scope:
        if scope == "project":
            return None, (
                f"{spec.key} cannot be set by the project: a repository does not choose your "
                f"own preferences. Remove {raw_key!r} from it; set it for yourself with "
                f"/memory set {spec.key} VALUE"
            )
        return None, (
            f"{spec.key} belongs in the project's {PROJECT_FILE}; remove {raw_key!r} here and "
            f"set it with /memory set {spec.key} VALUE"
        )
    return spec.key, None


def read_layer(scope: Scope, path: Path) -> Layer:
    """The file's values; never raises (problems are returned)."""
    label = label_for(scope, path)
    data, problem = _load_raw(path, label)
    if data is None:
        return Layer(scope, path, label, {}, (problem or "",), exists=True, readable=False)
    values: dict[str, MemoryValue] = {}
    problems: list[str] = []
    # The full name wins over an older short name for the same key.
    ordered = sorted(data.items(), key=lambda item: item[0].strip().lower() in LEGACY_NAMES)
    for raw_key, raw_value in ordered:
        key, key_problem = _file_key(scope, raw_key)
        if key is None:
            problems.append(f"{label}: {key_problem}")
            continue
        if key in values:
            continue
        spec = spec_for(key)
        assert spec is not None
        try:
            values[key] = check_value(spec, raw_value)
        except InvalidValue as invalid:
            problems.append(f"{label}: {invalid}; fix the value or remove the key")
    return Layer(scope, path, label, values, tuple(problems), exists=path.exists())


def _spellings(scope: Scope, key: str) -> set[str]:
    """Every way a file may spell ``key`` (to replace them all on write)."""
    name = key.split(".", 1)[1]
    names = {name, key}
    if scope == "project":
        names.update(short for short, full in LEGACY_NAMES.items() if full == name)
    return names


_WRITING = threading.Lock()
"""One read-modify-write at a time in this process (``/memory set`` while a ``remember`` call
is confirmed: both run in worker threads, and neither may lose the other's key)."""


def write_layer(scope: Scope, path: Path, updates: Mapping[str, MemoryValue | None]) -> None:
    """Set (or, for None, remove) dotted ``updates`` in the file, keeping every other key.
    Raises :class:`MemoryFileError` when the file cannot be read or written."""
    with _WRITING:
        _write_layer(scope, path, updates)


def _write_layer(scope: Scope, path: Path, updates: Mapping[str, MemoryValue | None]) -> None:
    label = label_for(scope, path)
    data, problem = _load_raw(path, label)
    if data is None:
        raise MemoryFileError(f"not changed: {problem}")
    for key, value in updates.items():
        spellings = {s.lower() for s in _spellings(scope, key)}
        for existing in [k for k in data if k.strip().lower() in spellings]:
            del data[existing]
        if value is not None:
            data[key.split(".", 1)[1]] = to_json(value)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        atomic_write(path, text)
    except OSError as error:
        raise MemoryFileError(
            f"cannot write {label}: {error.strerror or error}; check that the folder exists "
            "and is writable"
        ) from None


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file beside it and ``os.replace`` (the old
    file's permission bits are kept)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = temp_path(path)
    try:
        with temp.open("x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):  # a new file keeps the default mode
            os.chmod(temp, stat.S_IMODE(path.stat().st_mode))
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _sweep_stale_temps(path)


def _sweep_stale_temps(path: Path) -> None:
    """Temp files of ``path`` left by a writer that was killed (never indexed: .ipuaro/ and
    the config folder are not project code, so nothing else would remove them)."""
    for leftover in path.parent.glob(f".{glob.escape(path.name)}.ipuaro-*.tmp"):
        if is_temp_name(leftover.name) and not writer_alive(leftover.name):
            leftover.unlink(missing_ok=True)
