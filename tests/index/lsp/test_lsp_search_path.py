"""A language server is a program the user chose, never one the repository ships: a relative
entry on PATH (``node_modules/.bin``, ``.``, an empty entry), which means "in the folder I am
in" — the project — finds nothing, neither for ``true`` nor for a command given by name."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ipuaro.index.lsp import LanguageServers
from ipuaro.index.lsp.manager import resolve_command, search_path


def _plant(project: Path, marker: Path) -> Path:
    """The repository's own ``typescript-language-server``: it leaves a marker when run."""
    program = project / "node_modules" / ".bin" / "typescript-language-server"
    program.parent.mkdir(parents=True)
    program.write_text(f"#!/bin/sh\ntouch '{marker}'\n", encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


@pytest.mark.parametrize("entry", ["node_modules/.bin", "./node_modules/.bin", ""])
def test_true_never_finds_a_program_through_a_relative_path_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    project = tmp_path / "proj"
    program = _plant(project, tmp_path / "ran")
    if entry == "":  # an empty entry (a trailing ':') is the current folder
        program.rename(project / "typescript-language-server")
    monkeypatch.chdir(project)
    environ = {"PATH": os.pathsep.join([entry, "/usr/bin", "/bin"])}

    assert resolve_command("typescript", True, environ) is None
    assert entry not in search_path(environ).split(os.pathsep)


def test_a_command_by_name_never_starts_the_projects_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    marker = tmp_path / "ran"
    _plant(project, marker)
    monkeypatch.setenv("PATH", os.pathsep.join(["node_modules/.bin", "/usr/bin", "/bin"]))

    servers = LanguageServers(
        project,
        {"typescript": "typescript-language-server --stdio"},
        None,  # type: ignore[arg-type]  # no question is asked: only the start is watched
    )
    server = servers.servers["typescript"]
    try:
        assert not server.wait_ready(5)
    finally:
        servers.close()

    assert not marker.exists(), "the repository's node_modules/.bin program was started"
    assert "cannot start 'typescript-language-server'" in server.describe()
