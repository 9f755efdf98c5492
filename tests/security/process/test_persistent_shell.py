"""The persistent shell with real bash processes, inside the project's Landlock sandbox where the
kernel has one (as ``run_command`` runs it)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipuaro.security.process.persistent_shell import PersistentShell, available, bash_quote
from ipuaro.security.sandboxing.sandbox import SandboxProfile

pytestmark = pytest.mark.skipif(not available(), reason="needs bash and Linux /proc")


def processes_in(root: Path) -> list[int]:
    """Live processes whose working directory is in ``root`` (what a shell leaves behind)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = Path(os.readlink(entry / "cwd"))
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X") and (cwd == root or root in cwd.parents):
            found.append(int(entry.name))
    return found


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / "sub" / "deeper").mkdir(parents=True)
    return project.resolve()


@pytest.fixture
async def shell(root: Path) -> AsyncIterator[PersistentShell]:
    profile = SandboxProfile.for_project(root)
    made = PersistentShell(root, dict(os.environ), profile if profile.active else None)
    try:
        yield made
    finally:
        await made.close()
    assert processes_in(root) == []


async def test_cd_and_export_carry_over_to_the_next_call(
    shell: PersistentShell, root: Path
) -> None:
    first = await shell.run("cd sub && export X=1", 10)
    assert first.exit_code == 0 and first.reset is None
    assert shell.cwds == [root / "sub"]
    second = await shell.run("pwd; echo $X", 10)
    assert second.output == f"{root / 'sub'}\n1\n"
    assert second.cwd == root / "sub" and shell.starts == 1


async def test_a_timeout_kills_the_command_not_the_shell(
    shell: PersistentShell, root: Path
) -> None:
    await shell.run("cd sub && export KEPT=yes", 10)
    slow = await shell.run("sleep 100", 1)
    assert slow.timed_out and slow.exit_code is None and slow.reset is None
    after = await shell.run("pwd; echo $KEPT", 10)
    assert after.output == f"{root / 'sub'}\nyes\n" and shell.starts == 1


@pytest.mark.parametrize(
    "command",
    [
        "sleep 100; touch marker",
        "sleep 100 && touch marker || touch marker",
        "for i in 1 2; do sleep 100; touch marker; done; touch marker",
        "{ sleep 100; touch marker; }; touch marker",
    ],
)
async def test_a_timeout_stops_the_rest_of_the_command_too(
    shell: PersistentShell, root: Path, command: str
) -> None:
    await shell.run("export KEPT=1", 10)
    slow = await shell.run(command, 0.5)
    assert slow.timed_out and slow.reset is None
    assert not (root / "marker").exists()
    assert (await shell.run("echo $KEPT", 10)).output == "1\n"


async def test_a_timeout_inside_a_function_replaces_the_shell_rather_than_go_on(
    shell: PersistentShell, root: Path
) -> None:
    slow = await shell.run("g() { sleep 100; touch marker; }; g; touch marker", 0.5)
    assert slow.timed_out and slow.reset is not None
    assert not (root / "marker").exists()
    assert (await shell.run("echo back", 10)).output == "back\n"


async def test_a_pipeline_and_its_children_are_killed_on_timeout(
    shell: PersistentShell, root: Path
) -> None:
    slow = await shell.run("sleep 100 | cat; (sleep 100; echo never) & wait", 0.5)
    assert slow.timed_out
    assert "never" not in slow.output.splitlines()  # bash names the killed job, that is all
    assert (await shell.run("echo next", 10)).output == "next\n"
    assert [pid for pid in processes_in(root) if pid != shell.pid] == []


async def test_the_users_interrupt_stops_the_command_and_keeps_the_state(
    shell: PersistentShell,
) -> None:
    await shell.run("export KEPT=1", 10)
    cancel = asyncio.Event()
    asyncio.get_running_loop().call_later(0.3, cancel.set)
    stopped = await shell.run("sleep 100", 60, cancel=cancel)
    assert stopped.cancelled and not stopped.timed_out
    assert (await shell.run("echo $KEPT", 10)).output == "1\n"


async def test_a_cancelled_caller_leaves_nothing_running(
    shell: PersistentShell, root: Path
) -> None:
    task = asyncio.create_task(shell.run("cd sub; sleep 100", 60))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [pid for pid in processes_in(root) if pid != shell.pid] == []
    again = await shell.run("pwd", 10)
    assert again.exit_code == 0 and again.reset is None  # the sleep died; the shell stayed


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("exit 3", "exited with code 3"),
        ("exec true", "exited"),
        ("set -e; false", "exited with code 1"),
        ("exec >/dev/null", "closed or redirected"),
        ("exec 1>&- 2>&-", "closed or redirected"),
        ("exec 2>/dev/null", "closed or redirected"),
    ],
)
async def test_a_command_that_breaks_the_shell_gets_a_new_one_and_says_so(
    shell: PersistentShell, root: Path, command: str, why: str
) -> None:
    await shell.run("cd sub && export GONE=1", 10)
    broken = await shell.run(command, 10)
    assert broken.reset is not None and why in broken.reset, broken
    assert broken.cwd == root
    after = await shell.run('pwd; echo "[$GONE]"; echo err >&2', 10)
    assert after.output == f"{root}\n[]\nerr\n" and after.reset is None
    assert shell.starts == 2


@pytest.mark.parametrize("command", ["exec 0</dev/null", "exec 0<&-", "exec 3>&- 9>&-"])
async def test_redirecting_stdin_or_other_fds_keeps_the_shell(
    shell: PersistentShell, command: str
) -> None:
    await shell.run("export KEPT=1", 10)
    done = await shell.run(command, 10)
    assert done.reset is None
    assert (await shell.run("echo $KEPT", 10)).output == "1\n" and shell.starts == 1


async def test_a_busy_shell_is_replaced_after_a_timeout(shell: PersistentShell) -> None:
    busy = await shell.run("while :; do :; done", 0.5)
    assert busy.timed_out and busy.reset is not None and "busy" in busy.reset
    assert (await shell.run("echo back", 10)).output == "back\n"


@pytest.mark.parametrize("command", ["cat", 'read line; echo "got[$line]"', "head -c 10"])
async def test_commands_that_read_stdin_get_end_of_file_at_once(
    shell: PersistentShell, command: str
) -> None:
    done = await shell.run(command, 10)
    assert not done.timed_out and done.reset is None  # nothing waited for input
    assert (await shell.run("echo next", 10)).output == "next\n"


async def test_background_leftovers_are_stopped_without_noise_later(
    shell: PersistentShell, root: Path
) -> None:
    left = await shell.run("sleep 50 & echo started", 10)
    assert left.stopped_background and left.output == "started\n"
    assert [pid for pid in processes_in(root) if pid != shell.pid] == []
    assert (await shell.run("echo clean", 10)).output == "clean\n"


async def test_leaving_the_project_sends_the_next_command_home(
    shell: PersistentShell, root: Path
) -> None:
    os.symlink("/", root / "up")
    gone = await shell.run("cd up", 10)
    assert any("outside the project" in n for n in gone.notes)
    assert shell.cwds == [root]
    assert (await shell.run("pwd", 10)).output == f"{root}\n"


async def test_a_deleted_directory_sends_the_next_command_home(
    shell: PersistentShell, root: Path
) -> None:
    await shell.run("cd sub/deeper", 10)
    removed = await shell.run("rmdir ../deeper", 10)
    assert any("no longer exists" in n for n in removed.notes)
    assert (await shell.run("pwd", 10)).output == f"{root}\n"


async def test_output_is_capped_head_and_tail(shell: PersistentShell) -> None:
    big = await shell.run("seq 1 20000", 10, output_limit=1024)
    assert big.truncated and big.output_bytes > 100_000
    assert big.output.startswith("1\n2\n") and big.output.endswith("20000\n")


async def test_output_streams_while_the_command_runs(shell: PersistentShell, root: Path) -> None:
    # The command waits for a file the test writes only once "one" has reached it: the
    # command can end only if its output streamed while it ran.
    seen: list[str] = []
    go = root / "go"

    def on_output(text: str) -> None:
        seen.append(text)
        go.touch()

    done = await shell.run(
        "echo one; while [ ! -e go ]; do sleep 0.02; done; echo two", 30, on_output=on_output
    )
    assert not done.timed_out and done.output == "one\ntwo\n"
    assert "".join(seen) == "one\ntwo\n" and seen[0] == "one\n"


async def test_the_shell_writes_only_where_the_sandbox_allows(
    shell: PersistentShell, root: Path, tmp_path: Path
) -> None:
    if shell.sandbox is None:
        pytest.skip("no Landlock on this kernel")
    refused = await shell.run(f"echo x > {tmp_path / 'escaped.txt'}", 10)
    assert refused.exit_code != 0 and not (tmp_path / "escaped.txt").exists()
    assert (await shell.run("echo y > inside.txt", 10)).exit_code == 0
    assert (root / "inside.txt").read_text() == "y\n"


async def test_bad_arguments_are_clear_errors(shell: PersistentShell) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        await shell.run("  ", 10)
    with pytest.raises(ValueError, match="NUL"):
        await shell.run("echo \x00", 10)
    with pytest.raises(ValueError, match="timeout"):
        await shell.run("true", 0)
    await shell.close()
    with pytest.raises(RuntimeError, match="closed"):
        await shell.run("true", 10)


# --- framing: whatever the output, the next command's result is its own -----------------

LOOKALIKES = st.sampled_from(
    [
        "__ipuaro_rc",
        "0123456789abcdef0123456789abcdef:0\x00/\x00/\x00",
        "deadbeef:1\x00/tmp\x00/tmp\x00",
        "$'\\n'",
        "}; exit 0",
        "\x00",
        "\r",
    ]
)
OUTPUTS = st.lists(
    st.one_of(
        st.binary(max_size=300), st.text(max_size=200).map(str.encode), LOOKALIKES.map(str.encode)
    ),
    max_size=5,
).map(b"".join)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(payload=OUTPUTS)
async def test_any_output_is_framed_exactly(
    shell: PersistentShell, root: Path, payload: bytes
) -> None:
    (root / "payload.bin").write_bytes(payload)
    printed = await shell.run("cat payload.bin", 10)
    assert printed.exit_code == 0 and printed.reset is None
    assert printed.output == payload.decode("utf-8", "replace")
    after = await shell.run("echo next", 10)
    assert after.output == "next\n"


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=st.text(st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"])))
async def test_command_text_reaches_bash_unchanged(shell: PersistentShell, text: str) -> None:
    echoed = await shell.run(f"printf '%s' {bash_quote(text)}", 10)
    assert echoed.exit_code == 0 and echoed.reset is None
    assert echoed.output == text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
