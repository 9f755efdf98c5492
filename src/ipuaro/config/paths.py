"""Where the user's configuration lives and what a project is called (no side effects until
called)."""

from __future__ import annotations

import os
import re
from pathlib import Path


def project_name(root: Path) -> str:
    """The concept's name: ``{parent-folder}-{project-folder}``, e.g. ``projects-myapp``."""
    resolved = root.resolve()
    parent = resolved.parent.name or "root"
    raw = f"{parent}-{resolved.name or 'root'}"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", raw)


def config_dir() -> Path:
    """User config dir: ``IPUARO_CONFIG_DIR`` or the platform's user config dir."""
    override = os.environ.get("IPUARO_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("ipuaro", appauthor=False))
