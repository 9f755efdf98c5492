"""Project naming and data locations (no side effects until called)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ipuaro.config.paths import project_name

__all__ = ["data_dir", "project_name"]


def project_id(root: Path) -> str:
    """The project's identity in a store: :func:`project_name` plus a short hash of the resolved
    full path, e.g. ``projects-myapp-1f3a9c2e``. It names the default SQLite file and the Redis
    key prefix, so ``A/same/proj`` and ``B/same/proj`` never share a store."""
    resolved = root.resolve()
    digest = hashlib.sha256(os.fsencode(resolved)).hexdigest()[:8]
    return f"{project_name(resolved)}-{digest}"


def default_database(root: Path) -> Path:
    """The SQLite file of the project at ``root`` when ``store.path`` is not set: the one place
    that ties a project to its database (sessions included), so a change of naming is made
    here only."""
    return data_dir() / f"{project_id(root)}.db"


def data_dir() -> Path:
    """Where ipuaro keeps databases: ``IPUARO_DATA_DIR`` or the platform's user data dir."""
    override = os.environ.get("IPUARO_DATA_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("ipuaro", appauthor=False))
