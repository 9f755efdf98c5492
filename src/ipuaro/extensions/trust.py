"""Trusting a project: the extensions a repository declares run code, so they stay off until
the user says yes once for that project.

What needs trust is what a project's ``.ipuaro.json`` declares that starts programs: the
``trusted`` keys of :mod:`ipuaro.config.project_keys` — script tools (``extensions.tools``),
hooks (``extensions.hooks``) and MCP servers (``mcp.servers``). They are read through the
loader, after every spelling is mapped to one field name, so ``extensions.projectHooks`` or
``project_hooks`` cannot slip past the question. Custom slash commands are prompt templates and
need none. A yes is remembered in the user's data
folder (``trusted-projects.json``) for the project's resolved path together with
:func:`extension_digest`, a hash of exactly those declarations: a changed declaration (a pull
that adds a hook) asks again; the rest of the file may change freely.

    if declares_code(root) and not project_trusted(root):
        ...ask the user...; remember_trust(root)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic.alias_generators import to_camel

from ipuaro.config.loader import ConfigError, project_file_values
from ipuaro.store.naming import data_dir

__all__ = [
    "TRUST_FILE",
    "declared_code",
    "declares_code",
    "extension_digest",
    "forget_trust",
    "project_trusted",
    "remember_trust",
    "trust_file",
]

TRUST_FILE = "trusted-projects.json"
_CODE_KEYS = (
    ("extensions.tools", ("extensions", "project_tools")),
    ("extensions.hooks", ("extensions", "project_hooks")),
    ("mcp.servers", ("mcp", "servers")),
)
"""What the question names → where the loader keeps the project's declarations."""


def trust_file() -> Path:
    """Where trusted projects are remembered (``IPUARO_DATA_DIR`` or the user data folder)."""
    return data_dir() / TRUST_FILE


def declared_code(root: Path) -> dict[str, Any]:
    """What the project file declares that runs code: ``{"extensions.tools": …,
    "mcp.servers": …}`` (empty when nothing: the project needs no trust). An unreadable or
    invalid file declares nothing here; loading the configuration reports it."""
    try:
        values = project_file_values(root)
    except ConfigError:
        return {}
    found: dict[str, Any] = {}
    for name, path in _CODE_KEYS:
        value: Any = values
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value and name == "extensions.hooks" and isinstance(value, dict):
            value = {to_camel(event): hooks for event, hooks in value.items()}  # as written
        if value:
            found[name] = value
    return found


def declares_code(root: Path) -> bool:
    return bool(declared_code(root))


def extension_digest(root: Path) -> str:
    """A hash of the project's code-running declarations (key order and spacing ignored)."""
    canonical = json.dumps(declared_code(root), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def project_trusted(root: Path) -> bool:
    """True when the project declares nothing that runs code, or the user trusted exactly the
    declarations it has now."""
    if not declares_code(root):
        return True
    entry = _read().get(_key(root))
    return isinstance(entry, dict) and entry.get("digest") == extension_digest(root)


def remember_trust(root: Path) -> None:
    """The user trusts the project's current declarations."""
    entries = _read()
    entries[_key(root)] = {"digest": extension_digest(root), "trustedAt": int(time.time())}
    _write(entries)


def forget_trust(root: Path) -> None:
    entries = _read()
    if entries.pop(_key(root), None) is not None:
        _write(entries)


def _key(root: Path) -> str:
    return str(root.expanduser().resolve())


def _read() -> dict[str, Any]:
    try:
        data = json.loads(trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or damaged: nothing is trusted, the user is asked again
    return data if isinstance(data, dict) else {}


def _write(entries: dict[str, Any]) -> None:
    path = trust_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=".trust-", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(entries, out, indent=2, sort_keys=True)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
