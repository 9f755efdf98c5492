"""Keep every config test away from the real user config dir and the caller's IPUARO_* vars."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    user_dir = tmp_path / "user-config"
    user_dir.mkdir()
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(user_dir))
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    return user_dir
