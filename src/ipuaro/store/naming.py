"""Project naming and data locations (no side effects until called)."""

from __future__ import annotations

import os
from pathlib import Path

from ipuaro.config.paths import project_name

__all__ = ["data_dir", "project_name"]


def data_dir() -> Path:
    """Where ipuaro keeps databases: ``IPUARO_DATA_DIR`` or the platform's user data dir."""
    override = os.environ.get("IPUARO_DATA_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("ipuaro", appauthor=False))
