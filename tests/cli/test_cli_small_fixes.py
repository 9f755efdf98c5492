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
