"""A small ctypes binding to Linux Landlock, and the launcher that confines one command.

This module imports nothing but the standard library, so it also runs as a script
(``python -I -S landlock.py NETWORK RIGHTS PATH ... -- ARGV...``) without loading ipuaro: the
launcher reads the rules from its arguments, restricts itself (``prctl(PR_SET_NO_NEW_PRIVS)``,
``landlock_restrict_self``) and ``exec``s the command, which inherits the restriction with every
process it starts. No privilege is needed (Landlock is unprivileged since Linux 5.13); it
restricts root too.

Landlock only grants: every access a ruleset *handles* is refused unless a rule allows it
beneath some directory (or on one file). What to allow is decided by
:mod:`ipuaro.security.sandboxing.sandbox`; this module only speaks the kernel's ABI:

- ABI 1: file-system access rights; 2: ``REFER`` (moving across folders); 3: ``TRUNCATE``;
  4: TCP ``bind``/``connect``; 5: device ``ioctl``; 6: scoping (signals, abstract unix sockets).

If the kernel refuses the ruleset the launcher exits with :data:`LAUNCH_FAILED` and says why —
it never runs the command unconfined.
"""

from __future__ import annotations

import ctypes
import os
import sys

TYPE_CHECKING = False  # not ``typing``: importing it would slow every command's start
if TYPE_CHECKING:
    from typing import Any

SYS_CREATE_RULESET = 444  # the same numbers on every architecture (generic syscall table)
SYS_ADD_RULE = 445
SYS_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
RULE_NET_PORT = 2
PR_SET_NO_NEW_PRIVS = 38
LAUNCH_FAILED = 126

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13
TRUNCATE = 1 << 14
IOCTL_DEV = 1 << 15

NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
"""Rights to read and run what is beneath a folder."""
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
"""The only rights a rule on a single file (not a folder) may carry."""
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}


class RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in the kernel's header
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class LandlockError(OSError):
    """The kernel refused a Landlock call; the message says which and why."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The Landlock ABI the running kernel offers; 0 where there is none (not Linux, an old
    kernel, or Landlock left out of the kernel's ``lsm=`` list)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = _libc().syscall(SYS_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def handled_fs(abi: int) -> int:
    """Every file-system right ``abi`` knows (what a ruleset should handle)."""
    best = max((level for level in _FS_BY_ABI if level <= abi), default=0)
    return _FS_BY_ABI.get(best, 0)


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise LandlockError(errno, f"{what}: {os.strerror(errno)}")
    return result


def restrict(rules: list[tuple[str, int]], *, network: bool, abi: int | None = None) -> None:
    """Confine this process (and what it will run) to ``rules``: (path, rights) pairs.

    Paths that do not exist are skipped. With ``network`` False, TCP bind and connect are
    refused (ABI 4+). Signals to processes outside the sandbox and abstract unix sockets are
    scoped (ABI 6+). Raises :class:`LandlockError` when the kernel says no.
    """
    abi = abi_version() if abi is None else abi
    if abi < 1:
        raise LandlockError(0, "Landlock is not available in this kernel")
    libc = _libc()
    fs = handled_fs(abi)
    attr = RulesetAttr(fs, 0, 0)
    if abi >= 4 and not network:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    size = ctypes.sizeof(RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _check(
        libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0),
        "landlock_create_ruleset",
    )
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a folder this machine does not have
            try:
                allowed = rights & fs
                if not os.path.isdir(path):
                    allowed &= FILE_RIGHTS
                if not allowed:
                    continue
                beneath = PathBeneathAttr(allowed, fd)
                _check(
                    libc.syscall(
                        SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(beneath), 0
                    ),
                    f"landlock_add_rule({path})",
                )
            finally:
                os.close(fd)
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(libc.syscall(SYS_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _restore_signals() -> None:
    """Python ignores SIGPIPE and SIGXFSZ at start-up and ``exec`` keeps ignored signals: put
    them back, or ``ls | head`` would end in "write error: Broken pipe" instead of quietly.
    (``_signal`` rather than ``signal``, which imports ``enum`` and doubles the start-up.)"""
    import _signal  # type: ignore[import-not-found]  # no stubs: a C module

    for name in ("SIGPIPE", "SIGXFSZ"):
        number = getattr(_signal, name, None)
        if number is not None:
            _signal.signal(number, _signal.SIG_DFL)


def launcher_args(
    rules: list[tuple[str, int]],
    *,
    network: bool,
    pinned: list[str] | tuple[str, ...] = (),
    read_only: list[str] | tuple[str, ...] = (),
) -> list[str]:
    """The launcher's arguments: ``NETWORK`` (0/1), then RIGHTS PATH pairs, where RIGHTS may
    also be ``pin`` or ``ro`` (paths :mod:`ipuaro.security.sandboxing.confine` keeps in place or
    read-only)."""
    out = ["1" if network else "0"]
    out += [word for path in pinned for word in ("pin", path)]
    out += [word for path in read_only for word in ("ro", path)]
    for path, rights in rules:
        out += [str(rights), path]
    return out


def _sibling(name: str) -> Any:
    """``ipuaro.security.<name>`` (``confine``, ``supervisor``: standard library only), loaded
    beside this file: the launcher runs with ``-I``, so ipuaro itself is not importable."""
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)
    return __import__(name)


def main(argv: list[str]) -> int:
    """``landlock.py NETWORK [RIGHTS PATH]... -- COMMAND...``: confine, then exec the command.

    Before Landlock: the ``pin``/``ro`` paths are bound in a mount namespace of the
    launcher's own; after it, as root, the seccomp filter
    (:mod:`ipuaro.security.sandboxing.confine`). With a leading ``--supervise[=FD]``
    (:func:`ipuaro.security.sandboxing.supervisor.supervised_argv`) the confined launcher starts the
    command as its child and supervises it instead of ``exec``-ing it; with ``--subreaper``
    (:func:`~ipuaro.security.sandboxing.supervisor.subreaper_argv`) the command it ``exec``s is a
    child subreaper.

    Plain words rather than JSON: importing ``json`` (and ``re`` with it) would double the
    launcher's start-up, which every command pays.
    """
    parent = os.getppid()
    supervise_fd: int | None = None
    if argv[:1] == ["--subreaper"]:  # the flag survives exec: the command becomes one
        _libc().prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        argv = argv[1:]
    if argv and argv[0].startswith("--supervise"):
        value = argv[0].partition("=")[2]
        supervise_fd, argv = (int(value) if value.isdigit() else -1), argv[1:]
    if "--" not in argv or argv.index("--") + 1 >= len(argv):
        sys.stderr.write("usage: landlock.py NETWORK [RIGHTS PATH]... -- COMMAND [ARG...]\n")
        return 2
    split = argv.index("--")
    spec, command = argv[:split], argv[split + 1 :]
    try:
        if not spec or spec[0] not in ("0", "1") or len(spec) % 2 != 1:
            raise ValueError("expected NETWORK (0 or 1) then RIGHTS PATH pairs")
        pairs = [(spec[i], spec[i + 1]) for i in range(1, len(spec), 2)]
        pinned = [path for word, path in pairs if word == "pin"]
        read_only = [path for word, path in pairs if word == "ro"]
        rules = [(path, int(word)) for word, path in pairs if word not in ("pin", "ro")]
        confine = _sibling("confine") if pinned or read_only or os.geteuid() == 0 else None
        if confine is not None:
            confine.protect(pinned, read_only)  # best effort: no user namespaces, no pins
        restrict(rules, network=spec[0] == "1")
        if confine is not None:
            confine.deny_as_root()
    except ValueError as error:
        sys.stderr.write(f"ipuaro sandbox: bad rules ({error})\n")
        return LAUNCH_FAILED
    except OSError as error:
        sys.stderr.write(f"ipuaro sandbox: could not confine the command ({error})\n")
        return LAUNCH_FAILED
    if supervise_fd is not None:  # started by supervised_argv: supervise from in here
        code: int = _sibling("supervisor").supervise(command, supervise_fd, parent)
        return code
    _restore_signals()
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.stderr.write(f"ipuaro sandbox: cannot run {command[0]!r} ({error.strerror})\n")
        return 127
    return LAUNCH_FAILED  # not reached: execvp does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
