"""``ipuaro [PATH]`` reaches the TUI command and rejects what it cannot run."""

from __future__ import annotations

from pathlib import Path

import pytest
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


def test_model_server_flags_are_accepted_and_checked(tmp_path: Path, environment: None) -> None:
    flags = ["--provider", "openai", "--base-url", "http://127.0.0.1:1/v1"]
    flags += ["--api-key-env", "KEY", "--context-window", "4096"]
    result = CliRunner().invoke(cli, [str(tmp_path), *flags])
    assert result.exit_code == 2 and "interactive terminal" in result.output
    bad = CliRunner().invoke(cli, [str(tmp_path), "--provider", "lmstudio"])
    assert bad.exit_code == 2 and "'lmstudio' is not one of 'ollama', 'openai'" in bad.output


def test_bare_command_with_a_missing_path_names_it_and_shows_the_top_usage(
    tmp_path: Path, environment: None
) -> None:
    missing = tmp_path / "nowhere"
    result = CliRunner().invoke(cli, [str(missing)])
    assert result.exit_code == 2
    assert f"'{missing}' is neither a folder nor an ipuaro command" in result.output
    assert "Usage: ipuaro [OPTIONS] [PATH]" in result.output
    assert "ipuaro --help" in result.output
    assert "ipuaro tui" not in result.output


def test_a_mistyped_command_is_not_taken_for_a_missing_folder_silently(
    tmp_path: Path, environment: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["indx"])
    assert result.exit_code == 2
    assert "'indx' is neither a folder nor an ipuaro command" in result.output
    assert "Did you mean `ipuaro index`?" in result.output
    assert "Commands: index, inspect," in result.output


def test_a_file_path_points_to_its_folder(tmp_path: Path, environment: None) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x\n", encoding="utf-8")
    result = CliRunner().invoke(cli, [str(file)])
    assert result.exit_code == 2
    assert f"'{file}' is a file; open its project with `ipuaro {tmp_path}`" in result.output
    assert "ipuaro tui" not in result.output


def test_a_bad_option_shows_the_top_level_usage(tmp_path: Path, environment: None) -> None:
    result = CliRunner().invoke(cli, [str(tmp_path), "--bogus"])
    assert result.exit_code == 2
    assert "No such option '--bogus'" in result.output
    assert "Usage: ipuaro [OPTIONS] [PATH]" in result.output
    assert "Try 'ipuaro --help' for help." in result.output
    assert "ipuaro tui" not in result.output


def test_the_named_tui_command_keeps_its_own_usage(tmp_path: Path, environment: None) -> None:
    result = CliRunner().invoke(cli, ["tui", str(tmp_path), "--bogus"])
    assert result.exit_code == 2
    assert "Usage: ipuaro tui [OPTIONS] [PATH]" in result.output
