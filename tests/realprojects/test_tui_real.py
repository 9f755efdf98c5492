"""``ipuaro PROJECT`` in a real terminal (tmux) on projects as published. rxjs 7.8.1: the first
index (271 files, parsed in the process pool), a question to the stub model server (its own
process), an edit the model proposes applied on ``y``, ``/reindex``, and a branch switch that
changes 60 files, picked up by the file watcher (checked in the store). requests 2.32.3: the
first index and a question answered after a tool call on a real function."""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ipuaro.config.loader import load_config
from ipuaro.store.factory import open_store
from tests.realprojects.conftest import RealProject, git, lane_env
from tests.support.processes import StartStub
from tests.support.terminal import Tmux

pytestmark = [pytest.mark.realprojects, pytest.mark.tmux]

TARGET = "src/internal/util/isFunction.ts"
OLD = "  return typeof value === 'function';"
NEW = "  return typeof value === 'function' && value !== undefined;"
SCRIPT = {
    "replies": [
        {"text": "isFunction checks typeof value against 'function'.", "chunks": 6},
        {
            "text": "I will make the check explicit.",
            "tool_calls": [
                {"name": "replace", "arguments": {"path": TARGET, "old": OLD, "new": NEW}}
            ],
        },
        {"text": "The check is in place."},
    ]
}
WIDE = 60
"""Files the branch changes: more than the 48 from which the index parses in the pool."""
REINDEXED = re.compile(r"indexed 2\d\d files · \d+ parsed · [1-9][\d,]* unchanged")


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed (apt-get install tmux): the real-projects lane needs it")
    terminal = Tmux(f"ipuaro-real-{tmp_path.name}")
    try:
        yield terminal
    finally:
        terminal.run("kill-server")


def make_wide_branch(project: Path) -> list[str]:
    """A branch ``wide`` that adds a function to 60 operator files; back on ``main``."""
    files = sorted((project / "src" / "internal" / "operators").glob("*.ts"))[:WIDE]
    assert len(files) == WIDE
    git(project, "checkout", "-q", "-b", "wide")
    for n, path in enumerate(files):
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"\nexport function laneMarker{n}(): number {{\n  return {n};\n}}\n")
    git(project, "commit", "-q", "-am", "sixty operators gain a marker")
    git(project, "checkout", "-q", "main")
    return [str(p.relative_to(project)) for p in files]


def launch(
    tmux: Tmux, project: Path, model_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ipuaro PROJECT --new`` in tmux, the watcher on; the test reads the same data dir."""
    env = lane_env(tmp_path, model_url)
    env["IPUARO_WATCHDOG__ENABLED"] = "true"
    command = " ".join(
        ["env", "-u", "EDITOR", "-u", "VISUAL", "TERM=xterm-256color"]
        + [f"{k}={v}" for k, v in env.items() if k.startswith(("IPUARO_", "PYTHONPATH"))]
        + [sys.executable, "-m", "ipuaro", str(project), "--new"]
    )
    tmux.run("new-session", "-d", "-s", "ipuaro", "-x", "110", "-y", "36", command)
    for key in ("IPUARO_DATA_DIR", "IPUARO_CONFIG_DIR"):
        monkeypatch.setenv(key, env[key])


def definitions(project: Path, name: str) -> list[str]:
    store = open_store(load_config(project), project)
    try:
        return [d.path for d in store.find_definitions(name)]
    finally:
        store.close()


def test_the_tui_on_rxjs(
    real_project: RealProject,
    start_stub: StartStub,
    tmux: Tmux,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = real_project("rxjs")
    changed = make_wide_branch(project)
    launch(tmux, project, start_stub(SCRIPT), tmp_path, monkeypatch)

    # The first index: every file of the published package, through the process pool.
    screen = tmux.wait_for(lambda s: "Ask anything" in s, "the first index", timeout=240)
    assert re.search(r"indexed 2\d\d files · 2\d\d parsed · 0 unchanged", screen), screen
    assert "failed" not in screen
    assert definitions(project, "isFunction") == [TARGET]

    tmux.type("what does isFunction check?")
    tmux.keys("Enter")
    tmux.wait_for(lambda s: "against 'function'." in s and "tool calls" in s, "the answer")

    tmux.type("make the check explicit")
    tmux.keys("Enter")
    screen = tmux.wait_for(lambda s: "[Y] Apply" in s, "the diff")
    assert TARGET in screen
    tmux.keys("y")
    tmux.wait_for(lambda s: "The check is in place." in s, "the final answer")
    assert NEW in (project / TARGET).read_text(encoding="utf-8")

    tmux.type("/reindex")
    tmux.keys("Enter")
    screen = tmux.wait_for(lambda s: REINDEXED.search(s) is not None, "the re-index", timeout=240)
    assert "re-index failed" not in screen

    # A branch switch: 60 files change at once, the watcher applies them in one batch.
    git(project, "checkout", "-q", "wide")
    deadline = time.monotonic() + 240
    while definitions(project, f"laneMarker{WIDE - 1}") != [changed[-1]]:
        screen = tmux.screen()
        assert "index update failed" not in screen, screen
        if time.monotonic() > deadline:
            pytest.fail(f"the watcher never indexed the branch:\n{screen}")
        time.sleep(0.2)
    assert definitions(project, "laneMarker0") == [changed[0]]
    assert "index update failed" not in tmux.screen()

    tmux.keys("C-d")
    tmux.wait_for_exit()


LOOKUP_SCRIPT = {
    "replies": [
        {
            "text": "Let me read it.",
            "tool_calls": [
                {
                    "name": "get_function",
                    "arguments": {
                        "path": "src/requests/utils.py",
                        "name": "get_encoding_from_headers",
                    },
                }
            ],
        },
        {"text": "It reads the charset of the content-type header."},
    ]
}


def test_the_tui_on_requests(
    real_project: RealProject,
    start_stub: StartStub,
    tmux: Tmux,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Python sdist: its first index, and a question the model answers after a tool call."""
    project = real_project("requests")
    launch(tmux, project, start_stub(LOOKUP_SCRIPT), tmp_path, monkeypatch)
    screen = tmux.wait_for(lambda s: "Ask anything" in s, "the first index", timeout=240)
    assert re.search(r"indexed \d+ files · \d+ parsed · 0 unchanged", screen), screen
    assert "failed" not in screen
    assert definitions(project, "get_encoding_from_headers") == ["src/requests/utils.py"]

    tmux.type("how is the encoding found?")
    tmux.keys("Enter")
    screen = tmux.wait_for(lambda s: "content-type header." in s, "the answer")
    assert "get_function" in screen and "1 tool call" in screen
    tmux.keys("C-d")
    tmux.wait_for_exit()
