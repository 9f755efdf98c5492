"""``ipuaro [PATH]`` reaches the TUI command and rejects what it cannot run."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ipuaro.cli.main import cli


def test_new_and_session_exclude_each_other(project: Path) -> None:
    result = CliRunner().invoke(cli, [str(project), "--new", "--session", "abc"])
    assert result.exit_code == 2
    assert "--new and --session exclude each other" in result.output


def test_needs_an_interactive_terminal(project: Path) -> None:
    result = CliRunner().invoke(cli, [str(project)])
    assert result.exit_code == 2
    assert "needs an interactive terminal" in result.output
    assert "ipuaro run -p" in result.output


def test_missing_path_is_named(tmp_path: Path, environment: None) -> None:
    result = CliRunner().invoke(cli, [str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_model_server_flags_are_accepted_and_checked(tmp_path: Path) -> None:
    flags = ["--provider", "openai", "--base-url", "http://127.0.0.1:1/v1"]
    flags += ["--api-key-env", "KEY", "--context-window", "4096"]
    result = CliRunner().invoke(cli, [str(tmp_path), *flags])
    assert result.exit_code == 2 and "interactive terminal" in result.output
    bad = CliRunner().invoke(cli, [str(tmp_path), "--provider", "lmstudio"])
    assert bad.exit_code == 2 and "'lmstudio' is not one of 'ollama', 'openai'" in bad.output
