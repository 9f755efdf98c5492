"""``ipuaro index`` on a real terminal (tmux): the size question and the progress bar."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

IPUARO = Path(sys.executable).with_name("ipuaro")


@pytest.fixture
def session() -> Iterator[str]:
    name = f"ipuaro-test-{uuid.uuid4().hex[:8]}"
    yield name
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, check=False)


def screen(name: str) -> str:
    done = subprocess.run(
        ["tmux", "capture-pane", "-p", "-t", name, "-S", "-100"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.replace("\n", "")  # long paths wrap: compare the text unwrapped


def wait_for_text(name: str, text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = screen(name)
        if text in shown:
            return shown
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared; screen:\n{screen(name)}")


def test_large_project_asks_and_indexes_a_subfolder(
    ts_project: Path, tmp_path: Path, session: str
) -> None:
    (ts_project / ".ipuaro.json").write_text(json.dumps({"limits": {"maxFilesWarning": 5}}))
    command = (
        f"env -u IPUARO_CONFIG_FILE IPUARO_DATA_DIR={tmp_path / 'data'} "
        f"IPUARO_CONFIG_DIR={tmp_path / 'user'} {IPUARO} index {ts_project}; echo EXIT=$?; "
        "sleep 60"
    )
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "40", command],
        check=True,
    )
    wait_for_text(session, "[c]ontinue, pick a [s]ubfolder, or [q]uit")
    assert "more than limits.maxFilesWarning (5)" in screen(session)
    subprocess.run(["tmux", "send-keys", "-t", session, "s", "Enter"], check=True)
    wait_for_text(session, "Subfolder to index")
    subprocess.run(["tmux", "send-keys", "-t", session, "packages/shared", "Enter"], check=True)
    shown = wait_for_text(session, "EXIT=")
    assert "EXIT=0" in shown
    assert f"Indexed {ts_project / 'packages' / 'shared'}" in shown
    assert "100% (" in shown and "[=====" in shown  # the concept's progress bar
