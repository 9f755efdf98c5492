"""Where the user's configuration lives (no side effects until called)."""

from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    """User config dir: ``IPUARO_CONFIG_DIR`` or the platform's user config dir."""
    override = os.environ.get("IPUARO_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("ipuaro", appauthor=False))
