"""``ipuaro index`` names the files it could not parse (real tree-sitter, real SQLite store)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ipuaro.cli.main import cli


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "user-config"))
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "src" / "good.py").write_text("def ok():\n    return 1\n", encoding="utf-8")
    (root / "src" / "bad.py").write_text("def broken(:\n  x = = 2\n", encoding="utf-8")
    return root


def test_index_names_the_file_with_parse_errors(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = CliRunner().invoke(cli, ["index", str(root), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "(1 with parse errors, kept without symbols: src/bad.py)" in result.stdout
    as_json = CliRunner().invoke(cli, ["index", str(root), "--rebuild", "--json"])
    data = json.loads(as_json.stdout)
    assert (data["parseErrors"], data["parseErrorFiles"]) == (1, ["src/bad.py"])
