"""run_shell with real processes: process groups, timeouts, cancel, stdin, cwd, output caps."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from ipuaro.config.schema import CommandsConfig
from ipuaro.security.process.runner import (
    cap_output,
    command_timeout,
    environment_without,
    run_shell,
)


def _alive(pid: int) -> bool:
    """Running (not a zombie: PID 1 in some containers never reaps them)."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.parent.joinpath("self").exists():
        try:
            text = stat.read_text()
        except OSError:
            return False
        return text[text.rfind(")") + 2] not in "ZX"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()]


async def test_runs_in_the_project_root_and_reports_exit_code(tmp_path: Path) -> None:
    outcome = await run_shell("pwd -P; echo err >&2; exit 3", tmp_path, timeout=10)
    assert outcome.output.splitlines() == [str(tmp_path.resolve()), "err"]
    assert outcome.exit_code == 3
    assert not (outcome.timed_out or outcome.cancelled or outcome.truncated)


async def test_stdin_is_closed(tmp_path: Path) -> None:
    outcome = await run_shell('cat; read line; echo "read=$?"', tmp_path, timeout=10)
    assert outcome.output == "read=1\n"
    assert not outcome.timed_out  # nothing waited for input


async def test_timeout_kills_the_whole_group_including_grandchildren(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"(sleep 60 & echo $! >> {pids}; sleep 60 & echo $! >> {pids}; wait) ; echo never"
    outcome = await run_shell(command, tmp_path, timeout=0.5)
    assert outcome.timed_out and not outcome.cancelled
    assert outcome.exit_code is None
    assert "never" not in outcome.output
    grandchildren = _pids(pids)
    assert len(grandchildren) == 2
    assert [pid for pid in grandchildren if _alive(pid)] == []


async def test_timeout_escalates_to_sigkill_when_term_is_ignored(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"trap '' TERM; sleep 60 & echo $! > {pids}; wait"
    outcome = await run_shell(command, tmp_path, timeout=0.3, kill_grace=0.3)
    assert outcome.timed_out
    assert not _alive(_pids(pids)[0])


async def test_cancel_event_stops_the_command_promptly(tmp_path: Path) -> None:
    cancel = asyncio.Event()
    task = asyncio.create_task(run_shell("sleep 30", tmp_path, timeout=None, cancel=cancel))
    await asyncio.sleep(0.3)  # let it start
    cancel.set()
    outcome = await task
    # Cancelled, not run to its end (30 s): how fast is measured by bench/cancel_bench.py.
    assert outcome.cancelled and not outcome.timed_out
    assert outcome.exit_code is None


async def test_caller_cancellation_leaves_nothing_running(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    task = asyncio.create_task(
        run_shell(f"echo $$ > {pid_file}; sleep 30 & wait", tmp_path, timeout=None)
    )
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not _alive(_pids(pid_file)[0])


async def test_background_processes_are_stopped_when_the_command_ends(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = f"nohup sleep 60 > /dev/null 2>&1 & echo $! > {pids}; sleep 60 & echo started"
    outcome = await run_shell(command, tmp_path, timeout=10)
    assert outcome.exit_code == 0
    assert outcome.output.startswith("started\n")
    assert outcome.stopped_background
    assert "stopped background processes" in outcome.output
    assert outcome.duration_s < 3
    assert not _alive(_pids(pids)[0])


async def test_output_is_capped_keeping_head_and_tail(tmp_path: Path) -> None:
    outcome = await run_shell("seq 1 100000", tmp_path, timeout=20, output_limit=8192)
    full = "".join(f"{n}\n" for n in range(1, 100001))
    assert outcome.truncated
    assert outcome.output_bytes == len(full)
    assert len(outcome.output.encode()) <= 8192
    assert outcome.output.startswith("1\n2\n3\n")
    assert outcome.output.endswith("99999\n100000\n")
    head, marker, tail = outcome.output.partition("\n[... ")
    cut = int(tail.split(" bytes cut", 1)[0])
    kept = len(head.encode()) + len(tail.split("...]\n", 1)[1].encode())
    assert cut + kept == len(full)  # the marker tells exactly how much is missing
    assert f"of {len(full)} bytes of output" in marker + tail


async def test_small_output_is_untouched(tmp_path: Path) -> None:
    outcome = await run_shell("printf 'a\\nb'", tmp_path, timeout=10)
    assert outcome.output == "a\nb"
    assert not outcome.truncated
    assert outcome.output_bytes == 3


async def test_environment_is_replaced_and_made_non_interactive(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "ONLY": "one"}
    outcome = await run_shell('echo "$ONLY|${HOME:-}|$GIT_PAGER"', tmp_path, timeout=10, env=env)
    assert outcome.output == "one||cat\n"


async def test_secret_variables_can_be_kept_from_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    env = environment_without(["OPENAI_API_KEY"])
    assert "PATH" in env
    outcome = await run_shell('echo "key=${OPENAI_API_KEY:-}"', tmp_path, timeout=10, env=env)
    assert outcome.output == "key=\n"


async def test_bad_arguments_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="non-empty command"):
        await run_shell("  ", tmp_path, timeout=1)
    with pytest.raises(ValueError, match="does not exist"):
        await run_shell("ls", tmp_path / "missing", timeout=1)
    with pytest.raises(ValueError, match="timeout must be positive"):
        await run_shell("ls", tmp_path, timeout=0)
    with pytest.raises(ValueError, match="output_limit"):
        await run_shell("ls", tmp_path, timeout=1, output_limit=10)


def test_cap_output_short_text_unchanged() -> None:
    assert cap_output("hello\n", 256) == ("hello\n", False)


def test_cap_output_keeps_whole_lines_and_names_the_cut() -> None:
    text = "".join(f"line {n:04d}\n" for n in range(2000))
    capped, truncated = cap_output(text, 1024)
    assert truncated
    assert len(capped.encode()) <= 1024
    assert capped.startswith("line 0000\n")
    assert capped.endswith("line 1999\n")
    head, _, rest = capped.partition("\n[... ")
    assert head.endswith("\n") or head.endswith("0")  # cut at a line end
    assert all(line.startswith("line ") for line in head.splitlines())
    assert "bytes cut from the middle" in rest


def test_cap_output_never_splits_a_utf8_character() -> None:
    text = "é" * 5000  # two bytes each, no newlines to align on
    capped, truncated = cap_output(text, 301)
    assert truncated
    assert len(capped.encode()) <= 301
    assert "\ufffd" not in capped
    head, _, tail = capped.partition("\n[... ")
    assert set(head) == {"é"}
    assert set(tail.split("...]\n", 1)[1]) == {"é"}


def test_command_timeout_caps_every_call() -> None:
    assert command_timeout(CommandsConfig()) == 30.0  # the default for a command
    assert command_timeout(CommandsConfig(), tests=True) == 300.0  # a test runner's default
    assert command_timeout(CommandsConfig(timeout=None)) == 600.0  # no limit: still the cap
    assert command_timeout(CommandsConfig(timeout=30)) == 30
    assert command_timeout(CommandsConfig(timeout=30), requested=5) == 5
    assert command_timeout(CommandsConfig(max_timeout=60), requested=5000) == 60
    with pytest.raises(ValueError, match="positive"):
        command_timeout(CommandsConfig(), requested=-1)
