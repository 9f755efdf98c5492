"""The root command: --version, --help, lazy commands, not-built commands, default routing."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ipuaro import __version__
from ipuaro.cli.main import COMMANDS, DEFAULT_NAME, CommandSpec, build_cli, cli, load_command

StartServer = Callable[[dict[str, tuple[int, object]]], str]  # the model_server fixture
HEAVY_MODULES = ("pydantic", "httpx", "textual", "tree_sitter", "redis", "rich", "sqlite3")


def imported_modules(*args: str, env: dict[str, str] | None = None) -> tuple[str, set[str]]:
    """Run ``python -X importtime -m ipuaro ARGS`` for real; stdout and the modules it imported."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ipuaro", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    modules = {
        line.split("|")[-1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return result.stdout, modules


def top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_version_in_process() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert (result.exit_code, result.stdout) == (0, f"ipuaro {__version__}\n")


def test_version_as_a_real_process_imports_nothing_heavy() -> None:
    stdout, modules = imported_modules("--version")
    assert stdout == f"ipuaro {__version__}\n"
    assert "click" in modules  # proves the import log was read
    assert top_level(modules).isdisjoint(HEAVY_MODULES), top_level(modules) & set(HEAVY_MODULES)


def test_help_lists_every_command_without_importing_them() -> None:
    stdout, modules = imported_modules("--help")
    for name, spec in COMMANDS.items():
        assert f"{name} " in stdout and spec.help in stdout
    assert DEFAULT_NAME in stdout and "[PATH]" in stdout
    assert top_level(modules).isdisjoint(HEAVY_MODULES), top_level(modules) & set(HEAVY_MODULES)
    command_modules = {spec.target.partition(":")[0] for spec in COMMANDS.values()}
    assert "ipuaro.cli.main" in modules
    assert modules.isdisjoint(command_modules), modules & command_modules


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_registered_command_loads_or_says_which_part_is_missing(name: str) -> None:
    spec = COMMANDS[name]
    command = load_command(spec.target)
    if command is not None:
        assert isinstance(command, click.Command)
        return
    result = CliRunner().invoke(cli, [name, "some", "--args"])
    assert result.exit_code == 2
    assert result.stderr == f"ipuaro {name}: not built yet — {spec.part}\n"


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory on sys.path where tests write real command modules."""
    directory = tmp_path / "plugins"
    directory.mkdir()
    monkeypatch.syspath_prepend(str(directory))
    for name in list(sys.modules):
        if name.startswith("ipuaro_test_"):
            del sys.modules[name]
    return directory


RECORDER = textwrap.dedent(
    """
    import click

    @click.command()
    @click.argument("path", required=False)
    @click.option("--model")
    def command(path, model):
        click.echo(f"path={path} model={model}")
    """
)


def test_missing_module_becomes_a_not_built_command(plugin_dir: Path) -> None:
    group = build_cli({"thing": CommandSpec("ipuaro_test_absent:command", "Do a thing.", "X")})
    help_result = CliRunner().invoke(group, ["--help"])
    assert "thing" in help_result.stdout and "Do a thing." in help_result.stdout
    result = CliRunner().invoke(group, ["thing", "--whatever", "1"])
    assert (result.exit_code, result.stderr) == (2, "ipuaro thing: not built yet — X\n")


def test_existing_module_is_imported_and_run(plugin_dir: Path) -> None:
    (plugin_dir / "ipuaro_test_present.py").write_text(RECORDER, encoding="utf-8")
    group = build_cli({"thing": CommandSpec("ipuaro_test_present:command", "Do it.", "X")})
    result = CliRunner().invoke(group, ["thing", "p", "--model", "m"])
    assert (result.exit_code, result.stdout) == (0, "path=p model=m\n")


def test_a_broken_dependency_inside_a_command_is_not_hidden(plugin_dir: Path) -> None:
    (plugin_dir / "ipuaro_test_broken.py").write_text(
        "import ipuaro_test_no_such_dependency\n", encoding="utf-8"
    )
    group = build_cli({"thing": CommandSpec("ipuaro_test_broken:command", "Do it.", "X")})
    result = CliRunner().invoke(group, ["thing"])
    assert isinstance(result.exception, ModuleNotFoundError)
    assert result.exception.name == "ipuaro_test_no_such_dependency"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "path=None model=None"),
        (["proj"], "path=proj model=None"),
        (["proj", "--model", "m"], "path=proj model=m"),
        (["--model", "m", "proj"], "path=proj model=m"),
        (["-v", "proj"], "path=proj model=None"),
        (["--config", "c.json", "proj"], "path=proj model=None"),
        (["tui", "proj"], "path=proj model=None"),
        (["thing"], "thing ran"),
        (["./thing"], "path=./thing model=None"),
    ],
)
def test_anything_but_a_command_name_goes_to_the_default(
    plugin_dir: Path, argv: list[str], expected: str
) -> None:
    (plugin_dir / "ipuaro_test_default.py").write_text(RECORDER, encoding="utf-8")
    (plugin_dir / "ipuaro_test_thing.py").write_text(
        "import click\n"
        "command = click.Command('thing', callback=lambda: click.echo('thing ran'))\n",
        encoding="utf-8",
    )
    group = build_cli(
        {"thing": CommandSpec("ipuaro_test_thing:command", "A thing.", "X")},
        default=CommandSpec("ipuaro_test_default:command", "Default.", "the TUI"),
    )
    result = CliRunner().invoke(group, argv)
    assert (result.exit_code, result.stdout.strip()) == (0, expected), result.output


def test_default_without_its_module_says_not_built(plugin_dir: Path, tmp_path: Path) -> None:
    group = build_cli(default=CommandSpec("ipuaro_test_no_tui:command", "Open.", "the TUI"))
    result = CliRunner().invoke(group, [str(tmp_path)])
    assert result.exit_code == 2
    assert "not built yet — the TUI" in result.stderr


def test_bad_config_stops_the_default_with_one_line(tmp_path: Path) -> None:
    (tmp_path / ".ipuaro.json").write_text('{"llm": {"temperature": 9}}', "utf-8")
    result = CliRunner().invoke(cli, [str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"ipuaro: {tmp_path / '.ipuaro.json'}: llm.temperature: "
        "expected a number from 0.0 to 2.0, got 9\n"
    )


def test_missing_config_option_file_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--config", str(tmp_path / "no.json"), "doctor"])
    assert (result.exit_code, result.stderr) == (
        2,
        f"ipuaro: {tmp_path / 'no.json'}: config file not found\n",
    )


def test_config_error_escaping_a_command_is_one_line(plugin_dir: Path, tmp_path: Path) -> None:
    (tmp_path / ".ipuaro.json").write_text('{"plan": {"maxBlocks": 0}}', encoding="utf-8")
    (plugin_dir / "ipuaro_test_loads.py").write_text(
        textwrap.dedent(
            f"""
            import click
            from pathlib import Path
            from ipuaro.config.loader import load_config

            @click.command()
            def command():
                load_config(Path({str(tmp_path)!r}))
                click.echo("should not get here")
            """
        ),
        encoding="utf-8",
    )
    group = build_cli({"load": CommandSpec("ipuaro_test_loads:command", "Load.", "X")})
    result = CliRunner().invoke(group, ["load"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"ipuaro: {tmp_path / '.ipuaro.json'}: plan.maxBlocks: "
        "expected an integer from 1 to 64, got 0\n"
    )


def test_global_options_reach_commands(plugin_dir: Path) -> None:
    (plugin_dir / "ipuaro_test_globals.py").write_text(
        textwrap.dedent(
            """
            import click
            from ipuaro.cli.common import global_options

            @click.command()
            def command():
                options = global_options()
                click.echo(f"{options.config_file} {options.verbose}")
            """
        ),
        encoding="utf-8",
    )
    group = build_cli({"show": CommandSpec("ipuaro_test_globals:command", "Show.", "X")})
    # -v configures the root logger; give it back untouched to the other tests.
    handlers, level = logging.root.handlers[:], logging.root.level
    try:
        result = CliRunner().invoke(group, ["-vv", "--config", "extra.json", "show"])
    finally:
        logging.root.handlers[:], logging.root.level = handlers, level
    assert (result.exit_code, result.stdout) == (0, "extra.json 2\n")
