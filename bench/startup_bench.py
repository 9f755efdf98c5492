"""Start-up benchmark (issue 27 section 2): whole-process times on a one-file project.

Not a test. Run by hand (about a minute)::

    .venv/bin/python bench/startup_bench.py [--runs 7]
    git archive main src | tar -x -C /tmp/before   # then, before and after in the same rounds:
    .venv/bin/python bench/startup_bench.py --before /tmp/before/src

Measured in the same run, interleaved round by round so a loaded machine slows every row
alike (each a fresh process, medians of ``--runs``):

- ``python -c pass``: the floor of starting this interpreter at all;
- ``ipuaro --version``: the CLI's own import cost (nothing of the commands is imported);
- ``ipuaro index`` of a one-file project (goal < 0.25 s) into a temporary ``IPUARO_DATA_DIR``;
- ``ipuaro run -p`` against the protocol stub model server (``tests.stubs.model_server``) on
  127.0.0.1 with the index already warm: the time from spawn to the first byte the process
  writes to stdout (goal < 0.5 s), then the process is left to finish;
- ``ipuaro PROJECT --new`` (the TUI) in a tmux pane: the time from spawn to its input's
  placeholder on the screen (drawn once start-up is over and the input has the focus; goal
  < 0.8 s), then Ctrl+D; and the same for a bare Textual app with one TextArea, the floor of
  starting Textual at all (``--no-tui`` leaves both out, e.g. without tmux).

Wall time is from ``Popen`` to exit (or first byte); CPU is the child's user + system time
(``os.wait4``), which a busy machine inflates far less than the wall. The TUI rows have no CPU
figure (the process is tmux's child) and poll the screen every 20 ms.
``--before SRC`` adds every ipuaro row again, run from SRC with its own data dir, in the same
rounds (``--src`` runs only from SRC). ``bench/tui_startup_bench.py`` measures the TUI on a large
corpus (django by default).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from tui_startup_bench import BARE_APP, tmux  # bench/ is on sys.path: this runs as a script

REPO = Path(__file__).resolve().parents[1]
GOALS = {
    "ipuaro index (1 file)": 0.25,
    "ipuaro run -p: first byte": 0.5,
    "ipuaro TUI: ready for input": 0.8,
}
READY_TEXT = "Ask anything"


def timed(
    command: list[str], env: dict[str, str], cwd: Path, first_byte: bool
) -> tuple[float, float]:
    """(wall seconds to exit or to the first stdout byte, CPU seconds of the whole child)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert child.stdout is not None
    wall = None
    if first_byte and child.stdout.read(1):
        wall = time.perf_counter() - started
    child.stdout.read()
    assert child.stderr is not None
    errors = child.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if wall is None:
        wall = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {child.returncode}: {errors}")
    return wall, usage.ru_utime + usage.ru_stime


def time_to_ready(command: list[str], env: dict[str, str], quit_key: str) -> tuple[float, None]:
    """(seconds from spawning ``command`` in a fresh tmux pane to READY_TEXT on its screen,
    no CPU figure). ``env`` is the whole environment: tmux's server has its own."""
    unset = [f"-u{name}" for name in ("PYTHONDONTWRITEBYTECODE",) if name not in env]
    assigned = [f"{key}={value}" for key, value in env.items() if key.startswith(_PASSED)]
    shell = shlex.join(["env", *unset, *assigned, *command])
    started = time.perf_counter()
    tmux("new-session", "-d", "-s", "run", "-x", "120", "-y", "40", shell)
    deadline = started + 60
    while READY_TEXT not in (screen := tmux("capture-pane", "-p", "-t", "run")):
        if time.perf_counter() > deadline:
            tmux("kill-session", "-t", "run")
            raise SystemExit(f"not ready after 60 s; the screen was:\n{screen}")
        time.sleep(0.02)
    elapsed = time.perf_counter() - started
    tmux("send-keys", "-t", "run", quit_key)
    while "run" in tmux("list-sessions", "-F", "#{session_name}").split():
        if time.perf_counter() > deadline:
            tmux("kill-session", "-t", "run")
            break
        time.sleep(0.05)
    return elapsed, None


_PASSED = ("IPUARO_", "PYTHONPATH", "NO_COLOR", "TERM")


def ipuaro_rows(
    label: str, env: dict[str, str], project: Path, with_tui: bool
) -> dict[str, Callable[[], tuple[float, float | None]]]:
    """The ipuaro rows for one src (``env``), named with ``label``; the index warmed first."""
    python = sys.executable
    ipuaro = [python, "-m", "ipuaro"]
    subprocess.run(
        [*ipuaro, "index"], env=env, cwd=project, check=True, capture_output=True
    )  # the warm index `run` starts from, and the OS caches
    rows: dict[str, Callable[[], tuple[float, float | None]]] = {
        f"{label}ipuaro --version": partial(timed, [*ipuaro, "--version"], env, project, False),
        f"{label}ipuaro index (1 file)": partial(timed, [*ipuaro, "index"], env, project, False),
        f"{label}ipuaro run -p: first byte": partial(
            timed, [*ipuaro, "run", "-p", "say hi"], env, project, True
        ),
    }
    if with_tui:
        tui = partial(
            time_to_ready,
            [*ipuaro, str(project), "--new"],
            {**env, "TERM": "xterm-256color"},
            "C-d",
        )
        tui()  # its first start writes bytecode
        rows[f"{label}ipuaro TUI: ready for input"] = tui
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--src",
        type=Path,
        help="run ipuaro from this src folder (e.g. an older commit's `git archive`) for a before",
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="also run the ipuaro rows from this src folder (e.g. main's `git archive`), "
        "interleaved with the current ones in every round",
    )
    parser.add_argument("--no-tui", action="store_true", help="leave out the two TUI rows")
    args = parser.parse_args(argv)
    with_tui = not args.no_tui
    if with_tui and shutil.which("tmux") is None:
        raise SystemExit("tmux is not installed; pass --no-tui")
    python = sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        project = work / "project"
        project.mkdir()
        (project / "app.py").write_text("def greet(name):\n    return 'hi ' + name\n")
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        env = {
            **os.environ,
            "IPUARO_DATA_DIR": str(work / "data"),
            "IPUARO_CONFIG_DIR": str(work / "config"),
            "NO_COLOR": "1",
        }
        # an installed ipuaro has its bytecode cached; without this, every run compiles the
        # editable checkout's modules again (0.13-0.25 s of CPU on this box)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if args.src is not None:
            env["PYTHONPATH"] = str(args.src.resolve())
        script = work / "script.json"  # a rule answers every run, a queue only once
        script.write_text(json.dumps({"rules": [{"match": "say hi", "reply": {"text": "hi"}}]}))
        stub = subprocess.Popen(
            [python, "-m", "tests.stubs.model_server", "--port", "0", "--script", str(script)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert stub.stdout is not None
            url = stub.stdout.readline().split()[-1]  # "model stub listening on URL"
            env["IPUARO_LLM__BASE_URL"] = url
            rows: dict[str, Callable[[], tuple[float, float | None]]] = {
                "python -c pass": partial(timed, [python, "-c", "pass"], env, project, False),
            }
            if with_tui:
                tui_env = {**env, "TERM": "xterm-256color"}
                rows["bare Textual app: ready"] = partial(
                    time_to_ready, [python, "-c", BARE_APP], tui_env, "C-q"
                )
            variants = [("", env)]
            if args.before is not None:  # the same rows from another src, in the same rounds
                before = {
                    **env,
                    "PYTHONPATH": str(args.before.resolve()),
                    "IPUARO_DATA_DIR": str(work / "data-before"),
                }
                variants.insert(0, ("before: ", before))
            for label, variant in variants:
                rows.update(ipuaro_rows(label, variant, project, with_tui))
            times: dict[str, list[tuple[float, float | None]]] = {name: [] for name in rows}
            for _ in range(args.runs):
                for name, run in rows.items():
                    times[name].append(run())
        finally:
            if with_tui:
                tmux("kill-server")
            stub.terminate()
            stub.wait(timeout=10)
    floor = statistics.median(wall for wall, _ in times["python -c pass"])
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (2-core box shared by others)")
    print("| process | wall median (min) | CPU median | wall ÷ python -c pass | goal |")
    print("| --- | --- | --- | --- | --- |")
    for name, values in times.items():
        walls = [wall for wall, _ in values]
        cpus = [cpu for _, cpu in values if cpu is not None]
        wall = statistics.median(walls)
        bare = name.removeprefix("before: ")
        goal = f"< {GOALS[bare]} s" if bare in GOALS else ""
        cpu = f"{statistics.median(cpus):.3f} s" if cpus else "—"
        print(
            f"| {name} | {wall:.3f} s ({min(walls):.3f}) | {cpu} | {wall / floor:.1f}× | {goal} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
