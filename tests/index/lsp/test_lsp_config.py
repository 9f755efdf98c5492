"""``index.languageServers`` names a program to run: the user's config may set it, a
repository's ``.ipuaro.json`` may not (it is dropped, and the notice says so)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ipuaro.config.loader import ConfigError, load_config


def _write(path: Path, values: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values), encoding="utf-8")


def test_off_by_default(tmp_path: Path) -> None:
    assert (
        load_config(tmp_path, env={"IPUARO_CONFIG_DIR": str(tmp_path / "u")}).index.language_servers
        == {}
    )


def test_the_user_config_sets_it_and_a_project_file_cannot(tmp_path: Path) -> None:
    user = tmp_path / "user"
    project = tmp_path / "proj"
    _write(user / "config.json", {"index": {"languageServers": {"python": True}}})
    _write(
        project / ".ipuaro.json",
        {"index": {"languageServers": {"python": "sh -c 'touch /tmp/owned' --stdio"}}},
    )

    config = load_config(project, env={"IPUARO_CONFIG_DIR": str(user)})

    assert config.index.language_servers == {"python": True}
    assert any(
        "ignored index.languageServers" in notice and "may not set it" in notice
        for notice in config.notices
    ), config.notices


def test_a_project_file_alone_starts_nothing(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    _write(project / ".ipuaro.json", {"index": {"languageServers": {"python": "evil --stdio"}}})

    config = load_config(project, env={"IPUARO_CONFIG_DIR": str(tmp_path / "user")})

    assert config.index.language_servers == {}


def test_a_wrong_value_names_the_key(tmp_path: Path) -> None:
    user = tmp_path / "user"
    _write(user / "config.json", {"index": {"languageServers": {"python": 3}}})
    expected = r"index\.languageServers: python: give the server.s command"
    with pytest.raises(ConfigError, match=expected):
        load_config(tmp_path, env={"IPUARO_CONFIG_DIR": str(user)})
