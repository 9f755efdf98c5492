"""Fixtures for extensions: the core's real project, stub model server and workspace, plus
helpers that write config files and small programs (real processes, no fakes)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.agent.conftest import project  # noqa: F401  (the same real project fixture)
from tests.core.conftest import server  # noqa: F401

PYTHON = sys.executable


def user_config_dir() -> Path:
    return Path(os.environ["IPUARO_CONFIG_DIR"])


def write_user_config(values: dict[str, Any]) -> None:
    folder = user_config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(values), encoding="utf-8")


def write_project_config(root: Path, values: dict[str, Any]) -> None:
    (root / ".ipuaro.json").write_text(json.dumps(values), encoding="utf-8")


def write_program(root: Path, name: str, source: str) -> str:
    """A Python program inside the project (readable in the sandbox); its path, relative."""
    path = root / "scripts" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(source, encoding="utf-8")
    return f"scripts/{name}"
