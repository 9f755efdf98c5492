"""Content behind a symlink out of the project never reaches the store: not by the scan, not
when one path is re-read (a tool naming ``link/secret.txt``, the watcher), not by a folder
rescan through a link. Checked with a real ``ipuaro tool`` process and a canary key outside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ipuaro.index.scan.reader import read_entry
from ipuaro.index.scan.scanner import ScanEntry, scan
from ipuaro.store.protocol import Store
from tests.index.conftest import make_indexer, write

REPO = Path(__file__).resolve().parents[3]
KEY = "AKIAIOSFODNN7CANARY42"


def _project_with_link(tmp_path: Path) -> Path:
    outside = tmp_path / "home" / ".aws"
    write(outside, "credentials", f"aws_secret_access_key = {KEY}\n")
    write(outside, "deep/more.txt", f"{KEY}\n")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write(project, "app.py", "print('hi')\n")
    (project / "link").symlink_to(outside, target_is_directory=True)
    return project


def _stored_text(store: Store) -> str:
    return json.dumps(
        {rel: store.get_file(rel).model_dump(mode="json") for rel in store.file_hashes()}
    )


def test_naming_a_path_through_a_link_reads_nothing_behind_it(tmp_path: Path, store: Store) -> None:
    project = _project_with_link(tmp_path)
    indexer = make_indexer(project, store)
    indexer.index()
    indexer.update_paths(["link/credentials", "link/deep", "link/deep/more.txt", "link"])
    assert sorted(store.file_hashes()) == ["app.py", "link"]
    assert KEY not in _stored_text(store)
    assert scan(project, indexer.config, start="link/deep").entries == []


def test_a_file_swapped_for_a_link_after_the_scan_is_not_followed(tmp_path: Path) -> None:
    project = _project_with_link(tmp_path)
    (project / "notes.txt").symlink_to(tmp_path / "home" / ".aws" / "credentials")
    outcome = read_entry(project, ScanEntry("notes.txt", "text", 10, 0.0))
    assert outcome.status == "error" and outcome.text is None
    os.mkfifo(project / "pipe.txt")
    assert read_entry(project, ScanEntry("pipe.txt", "text", 0, 0.0)).status == "error"


def test_ipuaro_tool_then_grep_finds_no_key_from_outside(tmp_path: Path) -> None:
    project = _project_with_link(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(
        HOME=str(tmp_path / "home"),
        IPUARO_CONFIG_DIR=str(tmp_path / "cfg"),
        IPUARO_DATA_DIR=str(tmp_path / "data"),
        PYTHONPATH=str(REPO),
    )

    def tool(name: str, arguments: dict[str, object]) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "ipuaro", "tool", name, "--project", str(project)]
        return subprocess.run(
            [*argv, "--args", json.dumps(arguments)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    for path in ("link/credentials", "link/deep/more.txt"):
        read = tool("get_lines", {"path": path})
        assert KEY not in read.stdout + read.stderr
        assert "Traceback" not in read.stderr
    found = tool("grep_search", {"query": "AKIA"})
    assert "Traceback" not in found.stderr
    assert KEY not in found.stdout + found.stderr
