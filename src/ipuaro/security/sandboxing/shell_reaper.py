"""Kills a persistent shell's whole session when ipuaro goes away without closing it.

Run as a script (``python -I -S shell_reaper.py SID``), standard library only, in a session of
its own. It waits on its stdin, a pipe whose other end only ipuaro holds. ipuaro writes
``done`` when it closed the shell itself; end-of-file without it means ipuaro died (killed,
crashed): every process of session ``SID`` — the shell, the command it runs, what that left in
the background — is then sent ``SIGKILL``, so nothing outlives ipuaro.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

STAND_DOWN = b"done"


def session_members(sid: int) -> list[int]:
    """Live (non-zombie) processes whose session is ``sid``."""
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 3 and fields[3] == str(sid) and fields[0] not in ("Z", "X"):
            found.append(int(name))
    return found


def _descendants(pid: int) -> list[int]:
    """The shell's descendants, escaped ones included (it is their subreaper):
    :func:`ipuaro.security.sandboxing.supervisor.descendants`, loaded beside this file."""
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    import supervisor  # type: ignore[import-not-found]  # a sibling file, loaded by path

    found: list[int] = supervisor.descendants(pid)
    return found


def kill_session(sid: int, patience: float = 2.0) -> None:
    """SIGKILL every member of ``sid`` and every descendant of the shell (``sid`` is its pid)
    until none is left (new forks included). Descendants go first: once the shell is dead,
    what escaped its session would be re-parented out of reach."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        members = [*_descendants(sid), *session_members(sid)]
        if not members:
            return
        for pid in members:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1].isdigit():
        sys.stderr.write("usage: shell_reaper.py SESSION_ID\n")
        return 2
    sid = int(argv[1])
    received = b""
    while True:
        try:
            chunk = os.read(0, 64)
        except InterruptedError:
            continue
        except OSError:
            break
        if not chunk:
            break
        received += chunk
        if STAND_DOWN in received:
            return 0
    kill_session(sid)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl+C is ipuaro's to handle
    sys.exit(main(sys.argv))
