"""``ipuaro doctor`` on ``index.languageServers``: the real basedpyright found with its version,
a command that is not installed named with the command that installs it, one quiet line when
the key is not set."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ipuaro.cli.main import cli
from tests.cli.test_cli_doctor import StartServer, lines_by_check, ollama_tags
from tests.index.lsp.conftest import basedpyright

MODEL = "qwen2.5-coder:7b-instruct"


def doctor(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    model_server: StartServer,
    servers: dict[str, Any] | None,
) -> Result:
    config_dir = tmp_path / "user-config"
    config_dir.mkdir()
    if servers is not None:
        user = {"index": {"languageServers": servers}}
        (config_dir / "config.json").write_text(json.dumps(user), encoding="utf-8")
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(config_dir))
    monkeypatch.setenv("IPUARO_LLM__BASE_URL", model_server(ollama_tags(MODEL)))
    project = tmp_path / "project"
    project.mkdir()
    return CliRunner().invoke(cli, ["doctor", str(project)])


def server_lines(result: Result) -> dict[str, str]:
    return {k: v for k, v in lines_by_check(result).items() if k.startswith("language server")}


def test_the_key_not_set_is_one_passing_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    result = doctor(tmp_path, monkeypatch, model_server, None)
    assert result.exit_code == 0, result.output
    assert server_lines(result) == {
        "language servers": "✓ language servers: none configured (optional: "
        "index.languageServers, see docs/language-servers.md)"
    }


def test_an_installed_server_is_found_with_its_path_and_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    command = basedpyright()
    result = doctor(tmp_path, monkeypatch, model_server, {"python": f"{command} --stdio"})
    assert result.exit_code == 0, result.output
    line = server_lines(result)["language server python"]
    assert line.startswith(f"✓ language server python: {command} (basedpyright 1."), line


def test_true_finds_the_server_beside_ipuaros_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    command = basedpyright()
    if Path(command).parent != Path(sys.executable).parent:
        pytest.skip("basedpyright is not installed beside this Python")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # only ipuaro's own environment
    result = doctor(tmp_path, monkeypatch, model_server, {"python": True})
    line = server_lines(result)["language server python"]
    assert line.startswith(f"✓ language server python: {command} (basedpyright "), line


def test_missing_servers_fail_with_the_command_that_installs_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # nothing on PATH: only ipuaro's own environment
    servers = {
        "typescript": "typescript-language-server --stdio",
        "go": True,
        "javascript": "no-such-langserver --stdio",
        "rust": False,
    }
    result = doctor(tmp_path, monkeypatch, model_server, servers)
    assert result.exit_code == 1, result.output
    lines = server_lines(result)
    assert lines == {
        "language server typescript": (
            "✗ language server typescript: typescript-language-server not found (on PATH or "
            "beside ipuaro's Python) — fix: `npm i -g typescript typescript-language-server`, "
            "or correct index.languageServers.typescript in the user config"
        ),
        "language server go": (
            "✗ language server go: true, but none of gopls is on PATH or beside ipuaro's "
            "Python — fix: `go install golang.org/x/tools/gopls@latest`"
        ),
        "language server javascript": (
            "✗ language server javascript: no-such-langserver not found (on PATH or beside "
            "ipuaro's Python) — fix: install no-such-langserver, or correct "
            "index.languageServers.javascript in the user config"
        ),
    }
    assert "checks failed" in result.stdout.splitlines()[-1]
