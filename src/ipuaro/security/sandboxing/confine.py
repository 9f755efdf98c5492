"""What the sandbox launcher does besides Landlock: keep ipuaro's and git's own inputs
read-only, and, as root, close raw/netlink sockets and ``chroot``.

Standard library only: the launcher (:mod:`ipuaro.security.sandboxing.landlock`, run as a script)
loads this file by path before it confines itself.

Read-only inputs. Landlock only ever *grants*, and a right on the project folder covers all
beneath it, so ``.git/config`` cannot be left out of a writable project with Landlock alone.
The launcher therefore enters a user + mount namespace of its own (no privilege needed where
the kernel allows unprivileged user namespaces) and bind-mounts each protected path onto
itself read-only (:func:`protect`): ``.git/config``, ``.git/hooks``, ``.ipuaro.json``,
``.ipuaro/``. The ``.git`` folder itself is bound onto itself (still writable, so git works)
which makes it a mount point: it cannot be renamed away or replaced by a new one. Landlock then
forbids the command any mount or unmount, so it cannot undo this. Where user namespaces are
off, :func:`protect` returns False and the command runs with Landlock alone.

Root. As root the command keeps capabilities Landlock does not cover: :func:`deny_as_root`
installs a seccomp filter that refuses ``socket(AF_PACKET)``, ``socket(AF_NETLINK)``, any
``SOCK_RAW`` socket and ``chroot`` with ``EPERM`` (x86-64 and aarch64).
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
_ST_TO_MS = ((1, MS_RDONLY), (2, MS_NOSUID), (4, MS_NODEV), (8, MS_NOEXEC),
             (1024, MS_NOATIME), (2048, MS_NODIRATIME), (4096, MS_RELATIME))  # fmt: skip
"""statvfs flags (ST_*) to mount flags (MS_*): a remount must keep the locked ones."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def protect(pinned: list[str], read_only: list[str]) -> bool:
    """Enter a user + mount namespace, bind ``pinned`` onto themselves and ``read_only`` onto
    themselves read-only (paths that do not exist are skipped). False, changing nothing the
    command would notice, when the kernel refuses the namespace."""
    if not pinned and not read_only:
        return True
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
        return False
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
        _write("/proc/self/gid_map", f"{gid} {gid} 1\n")
    except OSError:
        return False
    if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return False
    for path in [*pinned, *read_only]:
        if not os.path.lexists(path) or os.path.islink(path):
            continue
        target = os.fsencode(path)
        if libc.mount(target, target, None, MS_BIND, None) != 0:
            raise OSError(ctypes.get_errno(), f"cannot bind {path}")
        if path in read_only:
            flags = MS_REMOUNT | MS_BIND | MS_RDONLY
            kept = os.statvfs(path).f_flag
            for st_flag, ms_flag in _ST_TO_MS:
                if kept & st_flag:
                    flags |= ms_flag
            if libc.mount(None, target, None, flags, None) != 0:
                raise OSError(ctypes.get_errno(), f"cannot make {path} read-only")
    return True


# --- seccomp (as root) ---------------------------------------------------------------------

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
SYSCALLS = {"x86_64": {"socket": 41, "chroot": 161}, "aarch64": {"socket": 198, "chroot": 51}}
AF_NETLINK, AF_PACKET, SOCK_RAW = 16, 17, 3
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, EPERM = 0x7FFF0000, 0x00050000, 1
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K, _AND_K = 0x20, 0x15, 0x35, 0x06, 0x54


class _SockFilter(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def root_filter(machine: str) -> bytes | None:
    """The BPF program for ``machine`` (``os.uname().machine``); None where unknown."""
    arch, numbers = AUDIT_ARCH.get(machine), SYSCALLS.get(machine)
    if arch is None or numbers is None:
        return None
    deny = SECCOMP_RET_ERRNO | EPERM
    program = [  # jt/jf: how many instructions to skip when true/false
        _op(_LD_W_ABS, 4),  # 0: seccomp_data.arch
        _op(_JEQ_K, arch, 1, 0),  # 1
        _op(_RET_K, SECCOMP_RET_ALLOW),  # 2: another ABI: not ours to judge
        _op(_LD_W_ABS, 0),  # 3: seccomp_data.nr
        _op(_JGE_K, 0x40000000, 1, 0),  # 4: x32 numbers (same arch value) -> deny
        _op(_JEQ_K, numbers["chroot"], 0, 1),  # 5
        _op(_RET_K, deny),  # 6
        _op(_JEQ_K, numbers["socket"], 1, 0),  # 7
        _op(_RET_K, SECCOMP_RET_ALLOW),  # 8
        _op(_LD_W_ABS, 16),  # 9: args[0] low word, the family
        _op(_JEQ_K, AF_NETLINK, 4, 0),  # 10 -> 15
        _op(_JEQ_K, AF_PACKET, 3, 0),  # 11 -> 15
        _op(_LD_W_ABS, 24),  # 12: args[1] low word, the type (with CLOEXEC/NONBLOCK bits)
        _op(_AND_K, 0xF),  # 13
        _op(_JEQ_K, SOCK_RAW, 0, 1),  # 14
        _op(_RET_K, deny),  # 15
        _op(_RET_K, SECCOMP_RET_ALLOW),  # 16
    ]
    return b"".join(program)


def deny_as_root() -> bool:
    """As root, refuse raw/netlink/packet sockets and ``chroot`` to this process and all it
    runs (needs ``no_new_privs``, which the launcher sets). True when installed."""
    if os.geteuid() != 0:
        return False
    program = root_filter(os.uname().machine)
    if program is None:
        return False
    buffer = ctypes.create_string_buffer(program)
    prog = _SockFilter(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = _libc()
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        sys.stderr.write(f"ipuaro sandbox: seccomp refused ({os.strerror(ctypes.get_errno())})\n")
        return False
    return True
