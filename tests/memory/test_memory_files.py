"""The two memory files: a broken one is a clear problem and is never written over, a write
keeps what it does not change, a repository cannot set the user's keys, and a kill during a
write leaves the old file or the new one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ipuaro.memory import MemoryFileError, apply_changes, check_patch, load_memory
from ipuaro.memory.files import write_layer


def write_project(root: Path, text: str) -> Path:
    path = root / ".ipuaro" / "project.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_nothing_remembered_is_no_problem(tmp_path: Path) -> None:
    memory = load_memory(tmp_path)
    assert memory.empty and memory.problems == () and memory.entries() == []


def test_broken_json_names_the_file_and_where_and_is_never_written_over(tmp_path: Path) -> None:
    path = write_project(tmp_path, '{"default_test_command": "pytest -q",\n  oops}\n')
    before = path.read_bytes()
    memory = load_memory(tmp_path)
    [problem] = memory.problems
    assert problem.startswith(".ipuaro/project.json: not valid JSON (line 2, column 3")
    assert "fix it or move it away" in problem
    patch = {"project.default_lint_command": "ruff check ."}
    check = check_patch(patch, memory)
    with pytest.raises(MemoryFileError, match=r"not changed: \.ipuaro/project\.json: not valid"):
        apply_changes(tmp_path, check.changes)
    assert path.read_bytes() == before


def test_a_broken_user_file_stops_the_whole_patch_before_anything_is_written(
    tmp_path: Path,
) -> None:
    env = {"IPUARO_CONFIG_DIR": str(tmp_path / "cfg")}
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "preferences.json").write_text("[1, 2]")
    memory = load_memory(tmp_path, env)
    assert "must be a JSON object" in memory.problems[0]
    assert str(tmp_path / "cfg" / "preferences.json") in memory.problems[0]
    patch = {"user.ask_budget": 1, "project.ci_notes": "CI runs tox"}
    with pytest.raises(MemoryFileError):
        apply_changes(tmp_path, check_patch(patch, memory).changes, env)
    assert not (tmp_path / ".ipuaro" / "project.json").exists()  # the project half waited too


def test_the_project_file_cannot_set_the_users_keys(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        json.dumps({"user.risk_tolerance": "high", "ask_budget": 2, "default_test_command": "x"}),
    )
    memory = load_memory(tmp_path)
    assert memory.get("user.risk_tolerance") is None and memory.get("user.ask_budget") is None
    assert memory.get("project.default_test_command") == "x"
    assert len(memory.problems) == 2
    for problem in memory.problems:
        assert "cannot be set by the project" in problem
        assert "/memory set user." in problem


def test_bad_values_and_unknown_keys_are_problems_the_rest_still_counts(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        json.dumps({"src_roots": "/abs", "ci_notes": "nightly", "sandbox": "off"}),
    )
    memory = load_memory(tmp_path)
    assert memory.as_json() == {"project": {"ci_notes": "nightly"}}
    src, unknown = memory.problems
    assert "project.src_roots must be a list of project-relative folders" in src
    assert "fix the value or remove the key" in src
    assert "unknown key 'sandbox'; remove or rename it" in unknown


def test_a_write_keeps_every_other_key_and_replaces_the_old_short_name(tmp_path: Path) -> None:
    path = write_project(
        tmp_path, json.dumps({"test": "make test", "lint": "flake8", "their_tool": {"x": 1}})
    )
    memory = load_memory(tmp_path)
    assert memory.get("project.default_test_command") == "make test"  # the older name is read
    write_layer("project", path, {"project.default_test_command": "pytest -q"})
    assert json.loads(path.read_text()) == {
        "lint": "flake8",
        "their_tool": {"x": 1},
        "default_test_command": "pytest -q",
    }


def test_the_files_permission_bits_are_kept(tmp_path: Path) -> None:
    path = write_project(tmp_path, "{}")
    path.chmod(0o600)
    write_layer("project", path, {"project.ci_notes": "x"})
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_file_where_the_folder_should_be_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / ".ipuaro").write_text("not a folder")
    memory = load_memory(tmp_path)
    assert memory.problems[0].startswith(".ipuaro/project.json: cannot be read (Not a directory")
    with pytest.raises(
        MemoryFileError, match=r"not changed: \.ipuaro/project\.json: cannot be read"
    ):
        apply_changes(tmp_path, check_patch({"project.ci_notes": "x"}, memory).changes)
    assert (tmp_path / ".ipuaro").read_text() == "not a folder"


WRITER = """
import sys
from pathlib import Path
from ipuaro.memory.files import write_layer
path = Path(sys.argv[1])
notes = ["a" * 1500, "b" * 1500]
print("ready", flush=True)
i = 0
while True:
    write_layer("project", path, {"project.ci_notes": notes[i % 2]})
    i += 1
"""


def test_a_kill_during_writes_leaves_a_whole_file(tmp_path: Path) -> None:
    """A real process rewrites the file as fast as it can and is killed -9 mid-stream: every
    read before and after sees a whole JSON file with one of the two values."""
    path = write_project(tmp_path, json.dumps({"ci_notes": "a" * 1500}))
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 0.6
        reads = 0
        while time.monotonic() < deadline:
            assert json.loads(path.read_text())["ci_notes"] in ("a" * 1500, "b" * 1500)
            reads += 1
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=10)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(timeout=10)
    assert reads > 10
    assert json.loads(path.read_text())["ci_notes"] in ("a" * 1500, "b" * 1500)
    write_layer("project", path, {"project.ci_notes": "after"})  # sweeps a killed writer's temp
    assert [p.name for p in path.parent.iterdir()] == ["project.json"]


def test_writes_from_many_threads_lose_no_key(tmp_path: Path) -> None:
    """/memory set and a confirmed remember call write from worker threads at once."""
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / ".ipuaro" / "project.json"
    keys = ["project.default_test_command", "project.default_lint_command", "project.build_command",
            "project.default_format_command", "project.ci_notes"]  # fmt: skip

    def write(key: str) -> None:
        for round_ in range(6):
            write_layer("project", path, {key: f"{key.split('.')[1]} {round_}"})

    with ThreadPoolExecutor(len(keys)) as pool:
        list(pool.map(write, keys))
    assert load_memory(tmp_path).as_json()["project"] == {
        key.split(".")[1]: f"{key.split('.')[1]} 5" for key in keys
    }
