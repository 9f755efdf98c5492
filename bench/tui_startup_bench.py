"""TUI start-up benchmark: from ``ipuaro PATH`` to a ready input on a warm index.

Not a test. Run by hand (about a minute after the one-time index)::

    .venv/bin/python bench/tui_startup_bench.py
    .venv/bin/python bench/tui_startup_bench.py --corpus /path/to/project --runs 7

What it does: indexes the corpus once with ``ipuaro index --yes`` into a temporary
``IPUARO_DATA_DIR``; starts the stub model server (``tests.stubs.model_server``) as its own
process; then launches ``ipuaro CORPUS --new`` in a tmux pane several times and measures the
wall time from spawning the command to the moment the input's placeholder ("Ask anything")
is on the screen — the app draws it only once start-up is over (checks, store, session, model
client, agent) and the input has the focus. Each run quits with Ctrl+D.

Baseline, measured the same way in the same tmux: a bare Textual app with one TextArea
(``python -c``), i.e. the cost of starting Python and Textual at all. The ratio says how much
ipuaro adds on top.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from corpora import corpus  # bench/ is on sys.path: this runs as a script

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = corpus("django")
READY_TEXT = "Ask anything"
TARGET_S = 1.5
POLL_S = 0.02
SOCKET = f"ipuaro-bench-{os.getpid()}"

BARE_APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static, TextArea

    class Bare(App):
        def compose(self):
            yield Static("bare textual app")
            yield TextArea(placeholder="Ask anything")

        def on_mount(self):
            self.query_one(TextArea).focus()

    Bare().run()
    """
)


def tmux(*args: str) -> str:
    result = subprocess.run(
        ["tmux", "-L", SOCKET, *args], capture_output=True, text=True, timeout=30
    )
    return result.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def time_to_ready(command: list[str], env: dict[str, str], quit_key: str) -> float:
    """Seconds from spawning ``command`` in a fresh tmux pane to READY_TEXT on its screen."""
    shell = " ".join(["env", *(f"{k}={v}" for k, v in env.items()), *command])
    started = time.perf_counter()
    tmux("new-session", "-d", "-s", "run", "-x", "120", "-y", "40", shell)
    deadline = started + 60
    while True:
        screen = tmux("capture-pane", "-p", "-t", "run")
        if READY_TEXT in screen:
            elapsed = time.perf_counter() - started
            break
        if time.perf_counter() > deadline:
            tmux("kill-session", "-t", "run")
            raise SystemExit(f"not ready after 60 s; the screen was:\n{screen}")
        time.sleep(POLL_S)
    tmux("send-keys", "-t", "run", quit_key)
    while "run" in tmux("list-sessions", "-F", "#{session_name}").split():
        if time.perf_counter() > deadline:
            tmux("kill-session", "-t", "run")
            break
        time.sleep(0.05)
    return elapsed


def summary(name: str, values: list[float]) -> str:
    return (
        f"{name:<28} median {statistics.median(values):.3f} s   "
        f"min {min(values):.3f} s   max {max(values):.3f} s   ({len(values)} runs)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    corpus: Path = args.corpus.resolve()
    if not corpus.is_dir():
        raise SystemExit(f"no corpus at {corpus}; fetch it or pass --corpus")
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is not installed")
    python = sys.executable
    work = Path(tempfile.mkdtemp(prefix="ipuaro-tui-bench-"))
    env = {
        "IPUARO_DATA_DIR": str(work / "data"),
        "IPUARO_CONFIG_DIR": str(work / "config"),
        "TERM": "xterm-256color",
    }
    child_env = {**os.environ, **env}
    stub = None
    try:
        print(f"corpus {corpus}")
        started = time.perf_counter()
        subprocess.run(
            [python, "-m", "ipuaro", "index", "--yes", str(corpus)],
            env=child_env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(f"one-time index: {time.perf_counter() - started:.1f} s")

        port = free_port()
        stub = subprocess.Popen(
            [python, "-m", "tests.stubs.model_server", "--port", str(port)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert stub.stdout is not None
        stub.stdout.readline()
        env["IPUARO_LLM__BASE_URL"] = f"http://127.0.0.1:{port}"

        ipuaro = [python, "-m", "ipuaro", str(corpus), "--new"]
        bare = [python, "-c", f"'{BARE_APP}'"]
        time_to_ready(ipuaro, env, "C-d")  # warm the OS caches and the index refresh
        ipuaro_runs = [time_to_ready(ipuaro, env, "C-d") for _ in range(args.runs)]
        bare_runs = [time_to_ready(bare, env, "C-q") for _ in range(args.runs)]
    finally:
        tmux("kill-server")
        if stub is not None:
            stub.terminate()
            stub.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)

    print(summary("ipuaro (warm index)", ipuaro_runs))
    print(summary("baseline: bare Textual app", bare_runs))
    median = statistics.median(ipuaro_runs)
    ratio = median / statistics.median(bare_runs)
    verdict = "meets" if median < TARGET_S else "misses"
    print(f"ratio ipuaro / bare Textual: {ratio:.2f}x; {verdict} the {TARGET_S} s target")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
