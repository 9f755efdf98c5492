"""A configured language server starts when the workspace's index is in, not at the first
question: a one-shot ``ipuaro run -p`` whose first tool call is ``find_references`` gets the
server's answer. Only languages the project has start; a missing server stays invisible; a
session that ends while its server starts leaves no process behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ipuaro.config.schema import Config
from ipuaro.index.lsp import LanguageServers
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore
from tests.agent.conftest import ScriptedModel, call, tool_outputs
from tests.stubs.model_server import ModelStubServer, ScriptedReply

from .conftest import JOBS, MAIN, basedpyright

READY_S = 90.0
"""How long a test waits for the server to start (a loaded CI machine)."""

READY_LINE = "language server for python ready (pid "
"""What ``ipuaro -v`` logs when the server is ready: the signal the headless test waits on."""


def write_project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


PYTHON = {"pkg/__init__.py": "", "pkg/jobs.py": JOBS, "pkg/main.py": MAIN}


@pytest.fixture
def indexed(tmp_path: Path) -> Iterator[tuple[Path, SqliteStore]]:
    root = write_project(tmp_path / "proj", PYTHON)
    store = SqliteStore(tmp_path / "store.db", "tests-lsp-warm")
    Indexer(root, Config(), store).index()
    try:
        yield root, store
    finally:
        store.close()


@pytest.fixture
def model_server() -> Iterator[ModelStubServer]:
    with ModelStubServer() as server:
        yield server


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def children_running(name: str) -> list[int]:
    """Processes whose command line holds ``name`` (this test's servers only: the caller
    compares before and after)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if name in cmdline and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def test_no_server_starts_for_a_language_the_project_does_not_have(
    indexed: tuple[Path, SqliteStore],
) -> None:
    root, store = indexed
    configured: dict[str, str | bool] = {"typescript": "no-such-ts-server --stdio"}
    servers = LanguageServers(root, configured, store)
    try:
        assert servers.warm() == []
        assert servers.servers["typescript"].state == "idle"
        assert not servers.until_ready(0.1)
    finally:
        servers.close()


def test_a_missing_server_warmed_fails_quietly_and_counts_one_start(
    indexed: tuple[Path, SqliteStore],
) -> None:
    root, store = indexed
    servers = LanguageServers(root, {"python": "no-such-language-server --stdio"}, store)
    try:
        assert servers.warm() == ["python"]
        assert not servers.until_ready(5)  # returns once the start failed, not at the timeout
        server = servers.servers["python"]
        assert server.state == "failed" and server.starts == 1
        assert servers.warm() == []  # a later index does not spend another start
        assert server.starts == 1
    finally:
        servers.close()


def test_closing_while_the_server_starts_leaves_no_process(
    indexed: tuple[Path, SqliteStore],
) -> None:
    root, store = indexed
    command = basedpyright()
    before = set(children_running(command))
    servers = LanguageServers(root, {"python": f"{command} --stdio"}, store)
    assert servers.warm() == ["python"]
    server = servers.servers["python"]
    # The start is under way (spawned, then the handshake and the workspace scan).
    spawned = threading.Event()
    for _ in range(200):
        if set(children_running(command)) - before:
            spawned.set()
            break
        spawned.wait(0.05)
    assert spawned.is_set(), server.describe()
    servers.close()
    assert not set(children_running(command)) - before
    assert not server.until_ready(0.1)


def test_a_headless_run_asks_the_server_it_started_at_opening(
    tmp_path: Path, model_server: ModelStubServer
) -> None:
    """``ipuaro run -p``: the model's first request is held until the server says (in the
    ``-v`` log) it is ready; the first tool call then gets the server's answer, which tells
    ``Job.run`` from ``Task.run`` where the index cannot. No question started the server."""
    command = basedpyright()
    root = write_project(tmp_path / "proj", PYTHON)
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    user_config = {"index": {"languageServers": {"python": f"{command} --stdio"}}}
    (config_dir / "config.json").write_text(json.dumps(user_config), encoding="utf-8")
    env = {
        **os.environ,
        "IPUARO_CONFIG_DIR": str(config_dir),
        "IPUARO_DATA_DIR": str(tmp_path / "data"),
        "IPUARO_LLM__BASE_URL": model_server.url,
        "IPUARO_LLM__CONTEXT_WINDOW": "32768",
    }
    env.pop("IPUARO_TRACE", None)
    ready = threading.Event()
    stderr: list[str] = []

    def once_ready(body: dict[str, Any]) -> ScriptedReply:
        ready.wait(READY_S)  # the first request waits for the server, never the other way
        return call("find_references", symbol="Job.run")

    model = ScriptedModel([once_ready, ScriptedReply(text="done")])
    model_server.responder = model
    argv = [sys.executable, "-m", "ipuaro", "-v", "run", "-p", "who calls Job.run?"]
    process = subprocess.Popen(
        [*argv, "--project", str(root), "--output", "json"],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def read_stderr() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            stderr.append(line)
            if READY_LINE in line:
                ready.set()

    # stderr has one reader, this thread (``communicate`` would be a second one, taking lines).
    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert process.stdout is not None
        out = process.stdout.read()
        process.wait(READY_S + 60)
    finally:
        if process.poll() is None:
            process.kill()
    reader.join(10)
    log = "".join(stderr)
    assert process.returncode == 0, log
    assert ready.is_set(), log
    assert json.loads(out)["reason"] == "done"
    assert log.count("language server for python ready") == 1, log
    (output,) = tool_outputs(model.bodies[-1])
    assert "(from the language server)" in output, output
    assert "pkg/main.py:5:" in output and "pkg/main.py:9:" in output  # job.run(), Job().run()
    assert "pkg/jobs.py:7" not in output  # Task.run's own declaration: only the index mixes it
    pid = int(log.split(READY_LINE, 1)[1].split(")", 1)[0])
    assert not alive(pid), "closing the workspace stops the server"
