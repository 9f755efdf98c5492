"""Ctrl+C at early and late moments of real ``ipuaro`` processes: never a traceback, never a
second result, exit 130 once ipuaro's own code runs (or the normal result if it finished).

Users press Ctrl+C more than once. A press storm (SIGINT every 2 ms until the process ends)
from each moment of the start hit, before: a traceback while the first press was being
reported (the reporter was still importing), a second JSON object when a press came while
``asyncio.run`` closed its loop, a death by SIGINT (status -2) while Python shut down, and
``RuntimeError: the workspace is closed`` when a press came while the workspace closed.

What no program can cover is the interpreter's start before ipuaro's first line (``site``,
and the ``import re`` of the script pip writes): there a press is CPython's own
KeyboardInterrupt (docs/cli.md). The sweep below allows exactly that and nothing else.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.agent.conftest import model_server, project  # noqa: F401  (real fixtures)
from tests.agent.test_agent_headless import ipuaro, run_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply

NOISE = ("Traceback", "Exception ignored", "Aborted!", "Error", "Warning")


def _start(
    root: Path, env: dict[str, str], *args: str, traced: bool = False
) -> subprocess.Popen[str]:
    command = ipuaro(root, env, *args)
    if traced:
        command = [command[0], "-X", "importtime", *command[1:]]
    return subprocess.Popen(
        command, env=env, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _storm(process: subprocess.Popen[str], every: float = 0.002) -> threading.Thread:
    """SIGINT every ``every`` seconds until the process has ended."""

    def press() -> None:
        while process.poll() is None:
            try:
                process.send_signal(signal.SIGINT)
            except ProcessLookupError:
                return
            time.sleep(every)

    thread = threading.Thread(target=press, daemon=True)
    thread.start()
    return thread


def _own_lines(err: str) -> list[str]:
    """stderr without ``-X importtime``'s lines."""
    return [line for line in err.splitlines() if line and not line.startswith("import time:")]


def _until_imported(process: subprocess.Popen[str], module: str) -> list[str]:
    assert process.stderr is not None
    seen: list[str] = []
    for line in process.stderr:
        seen.append(line)
        if line.rsplit("|", 1)[-1].strip() == module:
            return seen
    raise AssertionError(f"{module} was never imported:\n{''.join(seen)}")


MOMENTS = {
    "ipuaro's command line loads": "ipuaro.cli.common",
    "click loads": "click.core",
    "the run command loads": "ipuaro.cli.llm_flags",
    "the configuration schema loads": "pydantic",
    "the headless runner loads": "ipuaro.headless",
    "the configuration loads": "ipuaro.config.loader",
}


@pytest.mark.parametrize("module", list(MOMENTS.values()), ids=list(MOMENTS))
def test_a_storm_of_presses_from_each_moment_gives_one_result(
    project: Path,  # noqa: F811  (the fixtures imported above)
    model_server: ModelStubServer,  # noqa: F811
    tmp_path: Path,
    module: str,
) -> None:
    model_server.responder = lambda body: ScriptedReply(text="late", first_token_delay=120)
    process = _start(project, run_env(tmp_path, model_server), "-p", "hi", "--output", "json",
                     traced=True)  # fmt: skip
    try:
        seen = _until_imported(process, module)
        presses = _storm(process)
        out, err = process.communicate(timeout=120)
        presses.join(10)
    finally:
        process.kill()
    err = "".join(seen) + err
    assert process.returncode == 130, err
    result = json.loads(out)  # exactly one object
    assert (result["reason"], result["exitCode"]) == ("aborted", 130)
    assert not [line for line in _own_lines(err) if any(word in line for word in NOISE)], err
    assert len(_own_lines(err)) <= 1, err


def test_presses_after_the_result_keep_it(
    project: Path,  # noqa: F811
    model_server: ModelStubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The result is printed, the workspace closes and Python shuts down: presses now only
    hurry the end — the result and its exit code stand."""
    model_server.responder = lambda body: ScriptedReply(text="the answer")
    process = _start(project, run_env(tmp_path, model_server), "-p", "hi", "--output", "json")
    try:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()  # the object's first line: the result is being written
        presses = _storm(process, every=0.001)
        out = first + process.stdout.read()  # not communicate(): it would skip what is buffered
        err = process.stderr.read()
        process.wait(120)
        presses.join(10)
    finally:
        process.kill()
    assert process.returncode == 0, err
    result = json.loads(out)
    assert (result["answer"], result["exitCode"]) == ("the answer", 0)
    assert not [line for line in _own_lines(err) if any(word in line for word in NOISE)], err


def _script(env: dict[str, str]) -> list[str]:
    """The console script pip wrote beside this interpreter, else ``python -m ipuaro``."""
    script = Path(sys.executable).with_name("ipuaro")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ipuaro"]


def _interpreter_start(returncode: int, err: str) -> bool:
    """A press before ipuaro's entry point runs: CPython's own KeyboardInterrupt (or its death
    by the signal before Python set its handler), which no program can catch — in ``site``,
    in the script pip writes, or while the modules of the entry point itself are loading
    (every ipuaro frame of the traceback is a module body, none is ``main``)."""
    if returncode == 1 and "Fatal Python error: init_import_site" in err:
        return True  # in `site`
    ours = re.findall(r'File ".*/ipuaro/[^"]*", line \d+, in (\S+)', err)
    return returncode == -signal.SIGINT and all(where == "<module>" for where in ours)


@pytest.mark.parametrize("delay_ms", [0, 20, 50, 100, 200, 400])
@pytest.mark.parametrize("command", ["index", "run"])
def test_one_press_at_early_moments(
    project: Path,  # noqa: F811
    model_server: ModelStubServer,  # noqa: F811
    tmp_path: Path,
    delay_ms: int,
    command: str,
) -> None:
    model_server.responder = lambda body: ScriptedReply(text="late", first_token_delay=120)
    env = run_env(tmp_path, model_server)
    args = ["index"] if command == "index" else ["run", "-p", "hi"]
    process = subprocess.Popen(
        [*_script(env), *args], env=env, cwd=project, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        time.sleep(delay_ms / 1000)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    if _interpreter_start(process.returncode, err):
        return
    assert process.returncode in (0, 130), err
    assert "Traceback" not in err and "Aborted!" not in err and "Exception" not in err, err
    if process.returncode == 130:
        assert err.strip().splitlines() == ["ipuaro: interrupted by the user (Ctrl+C)"], err


def test_a_press_in_a_callback_prints_no_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """A press landing in a weak-reference callback is "Exception ignored in ..." with a
    traceback, after which Python carries on; ipuaro's hook carries on without it."""
    import weakref

    from ipuaro.cli.entry import quiet_presses

    printed: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", quiet_presses(printed.append))

    class Held:
        pass

    def pressed(_: object) -> None:
        raise KeyboardInterrupt

    def failed(_: object) -> None:
        raise ValueError("a real bug in a callback")

    held, other = Held(), Held()
    watchers = [weakref.ref(held, pressed), weakref.ref(other, failed)]
    del held, other
    assert [w() for w in watchers] == [None, None]
    assert [type(p.exc_value) for p in printed] == [ValueError]  # type: ignore[attr-defined]
