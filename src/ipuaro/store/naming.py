"""Project naming and data locations (no side effects until called)."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


def project_name(root: Path) -> str:
    """The concept's name: ``{parent-folder}-{project-folder}``, e.g. ``projects-myapp``."""
    resolved = root.resolve()
    parent = resolved.parent.name or "root"
    raw = f"{parent}-{resolved.name or 'root'}"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", raw)


def project_id(root: Path) -> str:
    """The project's identity in a store: :func:`project_name` plus a short hash of the resolved
    full path, e.g. ``projects-myapp-1f3a9c2e``. It names the default SQLite file and the Redis
    key prefix, so ``A/same/proj`` and ``B/same/proj`` never share a store."""
    resolved = root.resolve()
    digest = hashlib.sha256(os.fsencode(resolved)).hexdigest()[:8]
    return f"{project_name(resolved)}-{digest}"


def data_dir() -> Path:
    """Where ipuaro keeps databases: ``IPUARO_DATA_DIR`` or the platform's user data dir."""
    override = os.environ.get("IPUARO_DATA_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("ipuaro", appauthor=False))


def config_dir() -> Path:
    """User config dir: ``IPUARO_CONFIG_DIR`` or the platform's user config dir."""
    override = os.environ.get("IPUARO_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("ipuaro", appauthor=False))
