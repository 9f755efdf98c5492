"""A SIGKILLed ``ipuaro index`` leaves no pool process behind (real processes, Linux /proc)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after the last ")".
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            found.add(int(entry.name))
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


@pytest.mark.parametrize("attempt", range(2))
def test_sigkilled_index_leaves_no_pool_process(tmp_path: Path, attempt: int) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    body = "".join(
        f"export function f{i}(a: number): number {{ return a + {i}; }}\n" for i in range(60)
    )
    for i in range(1500):
        (project / "src" / f"m{i}.ts").write_text(
            f"import {{ f1 }} from './m{(i + 1) % 1500}';\n" + body
        )
    env = {
        **os.environ,
        "IPUARO_DATA_DIR": str(tmp_path / "data"),
        "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "ipuaro", "index", str(project), "--workers", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while len(workers) < 2 and time.monotonic() < deadline:  # the worst moment: mid-parse
            workers = _children(process.pid)
            time.sleep(0.02)
        assert len(workers) >= 2, "the pool never started"
        time.sleep(0.2 * attempt)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        gone_by = time.monotonic() + 30.0  # they go within milliseconds; 30 s guards a hang
        while _alive(workers) and time.monotonic() < gone_by:
            time.sleep(0.05)
        left = _alive(workers)
    finally:
        for pid in _alive(_children(process.pid)):
            os.kill(pid, signal.SIGKILL)
    for pid in left:  # do not leave them running even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, f"pool processes {sorted(left)} outlived ipuaro index by 30 s"
