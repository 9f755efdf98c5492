"""Small command-line promises: what --help lists."""

from __future__ import annotations

from click.testing import CliRunner

from ipuaro.cli.main import cli


def test_help_lists_every_sessions_subcommand_including_import() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    line = next(line for line in lines if line.strip().startswith("sessions"))
    for sub in ("list", "show", "delete", "export", "import"):
        assert sub in line.lower(), line


def test_an_unknown_camel_case_tool_gets_a_did_you_mean() -> None:
    for argv in (["tools", "creatFile"], ["tool", "creatFile", "--args", "{}"]):
        result = CliRunner().invoke(cli, argv)
        assert result.exit_code == 2
        assert "unknown tool 'creatFile' (did you mean create_file" in result.stderr
        assert "ipuaro tools" in result.stderr


def test_a_camel_case_tool_name_is_that_tool() -> None:
    result = CliRunner().invoke(cli, ["tools", "createFile"])
    assert result.exit_code == 0
    assert result.stdout.startswith("create_file  [")


def test_an_unknown_tool_with_nothing_close_lists_the_tools() -> None:
    result = CliRunner().invoke(cli, ["tools", "zzz"])
    assert result.exit_code == 2
    assert "did you mean" not in result.stderr
    assert "unknown tool 'zzz'; tools: get_lines" in result.stderr
