"""``ipuaro doctor [PATH]``: check everything ipuaro needs, one line per check, with the fix."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from ipuaro.cli.common import EXIT_USAGE, load_project
from ipuaro.cli.llm_flags import llm_options, llm_overrides
from ipuaro.core.checks import (
    CheckResult,
    check_grammars,
    check_language_servers,
    check_model_server,
    check_python,
    check_sandbox,
    check_store,
)
from ipuaro.core.mcp_probe import mcp_checks, probe_mcp


@click.command("doctor")
@click.argument(
    "path", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option("--model", metavar="M", help="Model name to check (llm.model).")
@llm_options
def command(path: Path | None, model: str | None) -> None:
    """Check Python, config, store, tree-sitter grammars, model server, model, the configured
    MCP servers and language servers for PATH. --model, --provider, --base-url… check that
    server instead of the configured one, as `ipuaro run` with the same flags would use it.

    Prints one line per check (✓ or ✗, and the fix for each ✗). Exit code 0 when every check
    passes, 1 otherwise; 2 when the configuration itself is invalid (the config line says why;
    the checks that need no configuration still run, the store and model server are not
    checked).
    """
    from ipuaro.config.loader import PROJECT_FILE, ConfigError, find_project_root

    try:
        overrides = {"llm.model": model, **llm_overrides()}
        root, config = load_project(path, overrides, raise_config_errors=True)
    except ConfigError as error:
        root = find_project_root(Path(path) if path else Path.cwd())
        _report_invalid_config(root, str(error))
        sys.exit(EXIT_USAGE)
    project_file = root / PROJECT_FILE
    config_detail = str(project_file) if project_file.is_file() else f"defaults (no {PROJECT_FILE})"
    results: list[CheckResult] = [
        check_python(),
        CheckResult("config", True, f"{config_detail}; project root {root}"),
        check_store(root, config),
        check_sandbox(root, config),
        *check_grammars(),
        *check_model_server(config, ask_window=True),
        *mcp_checks(asyncio.run(probe_mcp(root, config))),
        *check_language_servers(config),
    ]
    for result in results:
        click.echo(result.line())
    for notice in config.notices:  # keys a project file may not set: said, not failed
        click.echo(f"! config: {notice}")
    failed = sum(not result.ok for result in results)
    if failed:
        click.echo(f"{failed} of {len(results)} checks failed")
        sys.exit(1)
    click.echo(f"all {len(results)} checks passed")


def _report_invalid_config(root: Path, error: str) -> None:
    config = CheckResult(
        "config",
        False,
        error,
        "correct that value (every key: docs/configuration.md), then run `ipuaro doctor` again",
    )
    skipped = "not checked: the configuration is invalid"
    results = [
        check_python(),
        config,
        *check_grammars(),
        CheckResult("store", False, skipped),
        CheckResult("model server", False, skipped),
    ]
    for result in results:
        click.echo(result.line())
    click.echo(f"ipuaro: {error}", err=True)
    click.echo(f"the configuration of {root} is invalid: fix it first")
