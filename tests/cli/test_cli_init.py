"""``ipuaro init``: writes a valid .ipuaro.json, never clobbers without --force."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ipuaro.cli.main import cli
from ipuaro.config.loader import default_config_json, load_config
from ipuaro.config.schema import Config


def test_init_writes_defaults_that_load_back(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["init", str(tmp_path)])
    target = tmp_path / ".ipuaro.json"
    assert (result.exit_code, result.stdout) == (0, f"wrote {target}\n")
    text = target.read_text(encoding="utf-8")
    expected = json.loads(default_config_json())
    del expected["redis"]
    assert json.loads(text) == expected
    assert json.loads(text)["llm"]["model"] == "qwen2.5-coder:7b-instruct"
    assert load_config(tmp_path) == Config()
    assert [p.name for p in tmp_path.iterdir()] == [".ipuaro.json"]  # no temp file left


def test_init_refuses_to_clobber_then_force_overwrites(tmp_path: Path) -> None:
    target = tmp_path / ".ipuaro.json"
    target.write_text('{"llm": {"model": "mine"}}', encoding="utf-8")
    refused = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"ipuaro: init: {target} already exists; use --force to overwrite it\n"
    )
    assert target.read_text(encoding="utf-8") == '{"llm": {"model": "mine"}}'
    forced = CliRunner().invoke(cli, ["init", "--force", str(tmp_path)])
    assert forced.exit_code == 0
    assert "redis" not in json.loads(target.read_text(encoding="utf-8"))


def test_init_defaults_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0
    assert (tmp_path / ".ipuaro.json").is_file()


def test_init_into_a_missing_directory_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    result = CliRunner().invoke(cli, ["init", str(missing)])
    assert result.exit_code == 2
    assert result.stderr == f"ipuaro: init: {missing} is not a directory; create it first\n"


def test_init_writes_no_redis_section_for_an_sqlite_store(tmp_path: Path) -> None:
    """The default store is SQLite: a ``redis`` section would only suggest it is used."""
    assert CliRunner().invoke(cli, ["init", str(tmp_path)]).exit_code == 0
    written = json.loads((tmp_path / ".ipuaro.json").read_text(encoding="utf-8"))
    assert "redis" not in written
    assert written["llm"]["provider"] == "ollama"


def test_init_keeps_the_redis_section_when_the_store_is_redis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IPUARO_STORE__BACKEND", "redis")
    assert CliRunner().invoke(cli, ["init", str(tmp_path)]).exit_code == 0
    written = json.loads((tmp_path / ".ipuaro.json").read_text(encoding="utf-8"))
    assert written["redis"] == {"host": "localhost", "port": 6379, "db": 0}
