"""``ipuaro memory``: the memory from a shell, no model server — show (table or JSON), set,
unset, and bad input answered with one line and exit code 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ipuaro.cli.main import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["memory", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout, result.stderr


def test_set_show_unset(tmp_path: Path, isolated_environment: dict[str, str]) -> None:
    project = str(tmp_path)
    code, out, _ = run("set", "--project", project, "project.default_test_command", "pytest", "-q")
    assert code == 0 and "project.default_test_command: (not set) → 'pytest -q'" in out
    assert run("set", "--project", project, "user.risk_tolerance", "low")[0] == 0
    code, out, _ = run("--project", project, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["project"] == {"default_test_command": "pytest -q"}
    assert document["user"] == {"risk_tolerance": "low"}
    user_file = Path(isolated_environment["IPUARO_CONFIG_DIR"]) / "preferences.json"
    assert document["files"]["user"] == str(user_file) and document["problems"] == []
    code, out, _ = run("show", "--project", project)
    assert code == 0 and "project.default_test_command" in out and "'pytest -q'" in out
    assert run("unset", "--project", project, "user.risk_tolerance")[0] == 0
    assert json.loads(user_file.read_text()) == {}


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, _, err = run("set", "--project", str(tmp_path), "user.ask_budget", "5")
    assert code == 2 and "user.ask_budget must be a whole number 0..2" in err
    code, _, err = run("set", "--project", str(tmp_path), "sandbox", "off")
    assert code == 2 and err.startswith("ipuaro: unknown memory key 'sandbox'; the keys are:")
    assert not (tmp_path / ".ipuaro").exists()


def test_a_broken_file_is_named_and_kept(tmp_path: Path) -> None:
    path = tmp_path / ".ipuaro" / "project.json"
    path.parent.mkdir()
    path.write_text("{'single': 'quotes'}")
    code, out, err = run("--project", str(tmp_path), "--json")
    assert code == 0
    assert json.loads(out)["problems"][0].startswith(".ipuaro/project.json: not valid JSON")
    code, _, err = run("set", "--project", str(tmp_path), "project.ci_notes", "tox")
    assert code == 1 and "not changed: .ipuaro/project.json: not valid JSON" in err
    assert path.read_text() == "{'single': 'quotes'}"
