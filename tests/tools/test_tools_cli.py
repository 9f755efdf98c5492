"""``ipuaro tool`` as a real process: JSON out, exit codes 0 / 1 / 2 / 3."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import FIXTURE, GIT_IDENTITY, git

RXJS = (
    Path(os.environ.get("IPUARO_CORPORA", Path.home() / ".cache" / "ipuaro-corpora"))
    / "rxjs"
    / "package"
)


def run_tool(
    tmp_path: Path, project: Path, name: str, args: str, *extra: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(GIT_IDENTITY)
    env["IPUARO_DATA_DIR"] = str(tmp_path / "data")
    env["IPUARO_CONFIG_DIR"] = str(tmp_path / "user-config")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "ipuaro",
            "tool",
            name,
            "--args",
            args,
            "--project",
            str(project),
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )


def payload(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture
def app(tmp_path: Path) -> Path:
    root = tmp_path / "tools_app"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    return root


def test_read_tool_prints_json_and_exits_0(tmp_path: Path, app: Path) -> None:
    done = run_tool(tmp_path, app, "get_lines", '{"path": "src/utils/math.ts", "end": 3}')
    assert done.returncode == 0, done.stderr
    result = payload(done)
    assert result["success"] is True and result["error"] is None
    assert "1| export function add" in result["data"]
    assert "indexing" in done.stderr  # the first use indexes the project


def test_a_file_edited_on_disk_is_read_fresh_without_refresh(tmp_path: Path, app: Path) -> None:
    first = run_tool(tmp_path, app, "get_lines", '{"path": "src/utils/math.ts", "end": 2}')
    assert first.returncode == 0, first.stderr
    assert "1| export function add" in payload(first)["data"]
    math = app / "src" / "utils" / "math.ts"
    math.write_text(math.read_text().replace("function add(", "function plus("))
    # No watcher runs between two one-shot calls: the named file's hash is checked instead.
    again = run_tool(tmp_path, app, "get_lines", '{"file_path": "src/utils/math.ts", "end": 2}')
    assert again.returncode == 0, again.stderr
    data = payload(again)["data"]
    assert "1| export function plus" in data and "function add" not in data
    assert "indexing" not in again.stderr  # a check of one file, not a re-index of the project
    found = run_tool(tmp_path, app, "get_function", '{"path": "src/utils/math.ts", "name": "plus"}')
    assert found.returncode == 0, found.stderr
    assert "return a + b;" in json.dumps(payload(found)["data"])


def test_files_created_and_deleted_on_disk_are_seen(tmp_path: Path, app: Path) -> None:
    assert run_tool(tmp_path, app, "get_lines", '{"path": "src/utils/math.ts"}').returncode == 0
    (app / "src" / "utils" / "fresh.ts").write_text("export const answer = 42;\n")
    created = run_tool(tmp_path, app, "get_lines", '{"path": "src/utils/fresh.ts"}')
    assert created.returncode == 0, created.stderr
    assert "export const answer = 42;" in payload(created)["data"]
    (app / "src" / "utils" / "math.ts").unlink()
    deleted = run_tool(tmp_path, app, "get_lines", '{"path": "src/utils/math.ts"}')
    assert deleted.returncode == 1
    assert "export function add" not in deleted.stdout


def test_tool_error_exits_1_with_json(tmp_path: Path, app: Path) -> None:
    done = run_tool(tmp_path, app, "get_lines", '{"path": "src/utils/maths.ts"}')
    assert done.returncode == 1
    result = payload(done)
    assert result["success"] is False and "src/utils/math.ts" in result["error"]


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("get_lines", "{not json", "--args is not valid JSON"),
        ("get_lines", "[1, 2]", "--args must be a JSON object"),
        ("teleport", "{}", "unknown tool 'teleport'"),
    ],
)
def test_bad_usage_exits_2_with_one_line(
    tmp_path: Path, app: Path, name: str, args: str, message: str
) -> None:
    done = run_tool(tmp_path, app, name, args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert done.stdout == ""


def test_edit_without_yes_and_without_a_terminal_is_refused_exit_3(
    tmp_path: Path, app: Path
) -> None:
    before = (app / "README.md").read_bytes()
    args = json.dumps({"path": "README.md", "old": "A fixture project", "new": "Changed"})
    done = run_tool(tmp_path, app, "replace", args)
    assert done.returncode == 3, done.stdout + done.stderr
    result = payload(done)
    assert result["success"] is False
    # Nobody said no: the message says why it was not applied and which flag applies it.
    assert "rejected" not in result["error"]
    assert "nobody can be asked" in result["error"] and "--yes" in result["error"]
    assert "-Changed" not in result["details"]["diff"] and "+Changed" in result["details"]["diff"]
    assert (app / "README.md").read_bytes() == before


def test_command_without_yes_and_without_a_terminal_names_yes(tmp_path: Path, app: Path) -> None:
    done = run_tool(tmp_path, app, "run_command", '{"command": "curl http://127.0.0.1:9"}')
    assert done.returncode == 3, done.stdout + done.stderr
    error = payload(done)["error"]
    assert "nobody can be asked" in error and "rerun with --yes" in error
    denied = run_tool(tmp_path, app, "run_command", '{"command": "rm -rf /"}')
    assert denied.returncode == 3
    assert "--yes" not in payload(denied)["error"]  # no flag lifts a deny rule


def test_edit_with_yes_applies_and_undo_stack_persists(tmp_path: Path, app: Path) -> None:
    args = json.dumps({"path": "README.md", "old": "A fixture project", "new": "Changed"})
    done = run_tool(tmp_path, app, "replace", args, "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Changed" in (app / "README.md").read_text()
    assert payload(done)["details"]["diff"].count("+") >= 1
    again = run_tool(tmp_path, app, "grep_search", '{"query": "Changed"}')
    assert payload(again)["details"]["data"]["matches"][0]["path"] == "README.md"


@pytest.mark.corpora
def test_find_references_on_rxjs(tmp_path: Path) -> None:
    if not RXJS.is_dir():
        pytest.fail(f"the rxjs corpus is not at {RXJS}; fetch it (bench/README.md, Corpora)")
    done = run_tool(tmp_path, RXJS, "find_references", '{"symbol": "mergeMap"}', timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = payload(done)
    refs = result["details"]["data"]["references"]
    assert result["details"]["data"]["total"] >= 20
    for ref in refs[:20]:
        assert set(ref) == {"path", "line", "column", "confidence"}
        line = (RXJS / ref["path"]).read_text(encoding="utf-8").splitlines()[ref["line"] - 1]
        assert line[ref["column"] - 1 :].startswith("mergeMap"), (ref, line)
    assert any(r["path"] == "src/internal/operators/mergeMap.ts" for r in refs)
