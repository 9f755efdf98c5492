"""A project's .ipuaro.json is repository content: it can never widen the command policy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ipuaro.config.loader import ConfigError, load_config


def _write_project(root: Path, values: dict[str, object]) -> None:
    (root / ".ipuaro.json").write_text(json.dumps(values), encoding="utf-8")


def test_project_file_cannot_whitelist_commands(tmp_path: Path) -> None:
    _write_project(tmp_path, {"whitelist": {"user": ["curl"], "askForUnknown": False}})
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, env={"IPUARO_CONFIG_DIR": str(tmp_path / "cfg")})
    message = str(caught.value)
    assert "whitelist.user" in message
    assert "not allowed in a project file" in message
    assert "user config" in message


def test_user_config_may_whitelist(tmp_path: Path) -> None:
    user_dir = tmp_path / "cfg"
    user_dir.mkdir()
    (user_dir / "config.json").write_text(json.dumps({"whitelist": {"user": ["cargo"]}}))
    config = load_config(tmp_path, env={"IPUARO_CONFIG_DIR": str(user_dir)})
    assert config.whitelist.user == ["cargo"]


def test_project_protected_paths_only_add(tmp_path: Path) -> None:
    _write_project(tmp_path, {"project": {"protectedPaths": ["config/prod.yml", "!.env"]}})
    config = load_config(tmp_path, env={"IPUARO_CONFIG_DIR": str(tmp_path / "cfg")})
    protected = config.project.protected_paths
    assert ".env" in protected
    assert "*.pem" in protected
    assert "config/prod.yml" in protected
    assert "!.env" not in protected
