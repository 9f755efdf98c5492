"""QA (issue 21 item 6, one step earlier than the tested moments): Ctrl+C on
``ipuaro run --output json`` while the command is still loading its configuration / importing
the headless runner (before ``CtrlC`` is installed) ends in click's ``Aborted!`` with exit 1 and
no JSON object at all.

Measured on real processes (SIGINT with the default disposition, stub server, a reply that
streams for 20 s): Ctrl+C 0.5 s, 0.8 s and 1.1 s after start → "Aborted!", exit 1, stdout
empty; from 1.4 s on → one object, reason "aborted", exit 130.

Expected: one JSON object with reason "aborted" and exit code 130 whenever the run has parsed
its options (as the docs of ``ipuaro run`` promise).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ipuaro.cli import run_cmd
from ipuaro.cli.main import cli


def test_ctrl_c_while_the_configuration_loads_still_prints_one_aborted_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("print(1)\n")
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))

    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt  # what SIGINT does at this moment

    monkeypatch.setattr(run_cmd, "load_project", interrupted)
    result = CliRunner().invoke(
        cli,
        ["run", "--project", str(project), "-p", "hi", "--output", "json",
         "--model", "m", "--base-url", "http://127.0.0.1:9"],
    )  # fmt: skip
    assert result.exit_code == 130, result.output
    final = json.loads(result.stdout)
    assert (final["reason"], final["exitCode"]) == ("aborted", 130)
