"""The parent of every one-shot process ipuaro starts: nothing it spawns outlives it.

Run as a script (``python -I -S supervisor.py -- COMMAND...``), standard library only. It makes
itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): a process the command starts
that leaves its group or session (``setsid``, a double fork, ``nohup … &``) is re-parented to
the supervisor instead of to PID 1, so the supervisor always knows all of them. It then starts
the command and waits; when the command ends, or the supervisor is told to stop (``SIGTERM``,
``SIGINT``, ``SIGHUP`` — ipuaro's time-out or cancel), or ipuaro itself dies
(``PR_SET_PDEATHSIG``), every descendant still running is sent ``SIGTERM``, then ``SIGKILL``,
and reaped. Its exit code is the command's (``128 + n`` when a signal ``n`` ended it).

The persistent shell cannot have a parent in between (ipuaro talks to it by pid), so it is
started with ``--exec``: the shell itself becomes the subreaper, and ipuaro and the shell's
reaper stop its descendants by walking the tree from the shell (:func:`descendants`).

Why a subreaper and not a PID namespace or a cgroup: it needs no privilege and no user
namespaces (often disabled), works as root and as a user, and costs one small process.
What it cannot catch: a process that escapes *and* is re-parented elsewhere before the
supervisor sees it — impossible on Linux, where orphans always go to the nearest subreaper.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
SIGHUP, SIGINT, SIGKILL, SIGTERM = 1, 2, 9, 15
TERM_GRACE_S = 0.5
SCRIPT = os.path.abspath(__file__)
LAUNCHER = os.path.join(os.path.dirname(SCRIPT), "landlock.py")


class _Stop(Exception):
    """ipuaro (or a dying ipuaro's death signal) asked the supervisor to stop everything."""


def supervised_argv(argv: list[str], status_fd: int | None = None) -> list[str]:
    """``argv`` run under the supervisor by this Python (``-I -S``: no ipuaro imports). With
    ``status_fd`` (passed to the child), the supervisor writes ``stopped`` there when it had
    to stop processes the command left running after it ended."""
    if not argv:
        raise ValueError("supervised_argv needs a command to run")
    if argv[:4] == [sys.executable, "-I", "-S", LAUNCHER]:  # the sandbox launcher supervises
        flag = "--supervise" if status_fd is None else f"--supervise={status_fd}"
        return [*argv[:4], flag, *argv[4:]]
    report = [] if status_fd is None else ["--status-fd", str(status_fd)]
    return [sys.executable, "-I", "-S", SCRIPT, *report, "--", *argv]


def subreaper_argv(argv: list[str]) -> list[str]:
    """``argv`` started as a child subreaper itself (the flag survives ``exec``), for a
    long-lived process ipuaro talks to by pid (the persistent shell): what its commands
    leave, even ``setsid``, stays its descendant and is found by :func:`descendants`."""
    if not argv:
        raise ValueError("subreaper_argv needs a command to run")
    if argv[:4] == [sys.executable, "-I", "-S", LAUNCHER]:  # the sandbox launcher sets it
        return [*argv[:4], "--subreaper", *argv[4:]]
    return [sys.executable, "-I", "-S", SCRIPT, "--exec", "--", *argv]


def _children_map() -> dict[int, list[int]]:
    """{parent pid: [live child pids]} from ``/proc``."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return children
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[0] not in ("Z", "X"):
            children.setdefault(int(fields[1]), []).append(int(name))
    return children


def descendants(pid: int) -> list[int]:
    """Live descendants of ``pid`` (children first)."""
    tree = _children_map()
    found: list[int] = []
    queue = list(tree.get(pid, []))
    while queue:
        child = queue.pop(0)
        found.append(child)
        queue.extend(tree.get(child, []))
    return found


def _reap() -> bool:
    """Reap what has ended; True while some child (so some descendant) still lives. A live
    descendant always has a live child of ours above it, or is one (we are its subreaper),
    so "no child" means nothing is left, without reading ``/proc``."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        except InterruptedError:
            continue
        if pid == 0:
            return True


def stop_all(grace: float = TERM_GRACE_S) -> None:
    """TERM every descendant, wait up to ``grace`` seconds, then KILL until none is left."""
    me = os.getpid()
    for sig, wait in ((SIGTERM, grace), (SIGKILL, 5.0)):
        deadline = time.monotonic() + wait
        signalled = False
        while time.monotonic() < deadline or not signalled:
            left = descendants(me) if _reap() else []
            if not left:
                return
            if sig == SIGKILL or not signalled:
                for pid in left:
                    try:
                        os.kill(pid, sig)
                        if sig == SIGTERM:
                            os.kill(pid, 18)  # SIGCONT: a stopped process must wake to die
                    except OSError:
                        pass
                signalled = True
            time.sleep(0.01)


def _exit_like(status: int, signal_module: object) -> int:
    """Exit the way the command did: its exit code, or killed by the same signal (so the
    caller sees the usual negative return code), without a core dump of the supervisor."""
    if not os.WIFSIGNALED(status):
        return os.WEXITSTATUS(status)
    signum = os.WTERMSIG(status)
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal_module.signal(signum, signal_module.SIG_DFL)  # type: ignore[attr-defined]
    os.kill(os.getpid(), signum)
    return 128 + signum  # a signal that does not end a process by default


def main(argv: list[str]) -> int:
    parent = os.getppid()
    if argv[:2] == ["--exec", "--"] and len(argv) > 2:
        ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        try:
            os.execvp(argv[2], argv[2:])
        except OSError as error:
            sys.stderr.write(f"ipuaro: cannot run {argv[2]!r} ({error.strerror})\n")
        return 127
    status_fd = -1
    if argv[:1] == ["--status-fd"] and len(argv) > 1 and argv[1].isdigit():
        status_fd, argv = int(argv[1]), argv[2:]
    if not argv or argv[0] != "--" or len(argv) < 2:
        sys.stderr.write("usage: supervisor.py [--status-fd FD] -- COMMAND [ARG...]\n")
        return 2
    return supervise(argv[1:], status_fd, parent)


def supervise(command: list[str], status_fd: int, parent: int) -> int:
    """Start ``command`` and stop every descendant when it ends or we are told to stop
    (``parent``: ipuaro's pid when this process started). Also called by the sandbox
    launcher once it confined itself, so a sandboxed command costs one Python start."""
    import _signal  # type: ignore[import-not-found]  # no stubs: a C module

    def stop(signum: int, frame: object) -> None:
        raise _Stop(signum)

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0)
    for signum in (SIGTERM, SIGINT, SIGHUP):
        _signal.signal(signum, stop)
    try:
        if os.getppid() != parent:
            raise _Stop(SIGTERM)  # ipuaro died before the death signal was armed
        child = os.fork()
        if child == 0:
            if status_fd >= 0:
                os.close(status_fd)
            for signum in (SIGTERM, SIGINT, SIGHUP, 13, 25):  # and SIGPIPE, SIGXFSZ
                _signal.signal(signum, _signal.SIG_DFL)
            try:
                os.execvp(command[0], command)
            except OSError as error:
                sys.stderr.write(f"ipuaro: cannot run {command[0]!r} ({error.strerror})\n")
            os._exit(127)
        while True:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                return 0
            if pid == child:
                break
    except _Stop as stopped:
        for signum in (SIGTERM, SIGINT, SIGHUP):
            _signal.signal(signum, _signal.SIG_IGN)
        stop_all()
        return 128 + int(stopped.args[0])
    for signum in (SIGTERM, SIGINT, SIGHUP):
        _signal.signal(signum, _signal.SIG_IGN)
    if status_fd >= 0 and _reap() and descendants(os.getpid()):
        try:  # noqa: SIM105 - contextlib would slow every command's start
            os.write(status_fd, b"stopped")
        except OSError:
            pass
    stop_all()
    return _exit_like(status, _signal)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
