"""The kernel sandbox every command ipuaro runs goes through: what it may read and write.

:class:`SandboxProfile` is the one API for anything that starts a process for the model
(``run_command``, ``run_tests`` today; script tools, hooks and MCP stdio servers later):
``profile.wrap(argv)`` returns the argv to start instead (:func:`sandboxed_argv`), and
``profile.environment(env)`` points ``TMPDIR`` at the profile's private temp folder.

Profiles:

- ``workspace`` (default): the project and a private temp folder are writable; the rest of the
  system folders can be read; in the home folder only dot-folders (tool settings and caches) can
  be read, never the known secret ones (:data:`HOME_SECRETS`); other users' homes, ``/tmp``,
  ``/mnt``, ``/media`` and ``/etc/shadow``-like files cannot be read at all. TCP is off unless
  the profile allows the network.
- ``read-only`` (plan mode): the same reads, and writes only in the private temp folder.
- ``off``: the command runs as it is (the user's explicit choice; the status bar warns).

The engine is Linux Landlock (:mod:`ipuaro.security.sandboxing.landlock`, a ctypes binding run as a
tiny launcher): it needs no privilege and also binds root. Where the kernel has no Landlock,
:func:`engine` is None and :mod:`ipuaro.tools.shell` asks before every command that is not known
to be read-only instead.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ipuaro.security.git.git_place import linked_git_dirs
from ipuaro.security.sandboxing import landlock as ll

if TYPE_CHECKING:
    from ipuaro.config.schema import SandboxConfig

__all__ = [
    "HOME_SECRETS",
    "SYSTEM_SECRETS",
    "ProfileName",
    "SandboxProfile",
    "engine",
    "is_secret_location",
    "sandboxed_argv",
    "status_label",
]

ProfileName = Literal["workspace", "read-only", "off"]
LAUNCHER = Path(ll.__file__).resolve()

WRITE = ll.handled_fs(99)  # every file-system right
DEVICE_FILES = ("null", "zero", "full", "random", "urandom", "tty", "ptmx")
_HIDDEN_TOP = frozenset({"home", "root", "tmp", "mnt", "media", "lost+found"})
"""Top-level folders nobody's command reads: other users' files and shared temp folders."""
SYSTEM_SECRETS = {
    "etc": frozenset({"shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d"}),
    "var": frozenset({"tmp"}),
}
"""Entries of system folders that stay unreadable."""
HOME_SECRETS: dict[str, frozenset[str]] = {
    "": frozenset(
        {
            ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".netrc", ".git-credentials", ".pgpass",
            ".npmrc", ".pypirc", ".password-store", ".vault-token", ".bash_history",
            ".zsh_history", ".python_history", ".node_repl_history", ".psql_history",
            ".mysql_history", ".lesshst", ".viminfo",
        }
    ),
    ".config": frozenset({"gh", "hub", "gcloud", "op", "git/credentials", "rclone"}),
    ".docker": frozenset({"config.json"}),
    ".local/share": frozenset({"keyrings"}),
    ".cargo": frozenset({"credentials", "credentials.toml"}),
    ".terraform.d": frozenset({"credentials.tfrc.json"}),
}  # fmt: skip
"""Secret entries of the home folder (by parent, relative to home): never readable."""
TOOLCHAIN_PARTS = (
    "bin", "lib", "lib64", "libexec", "share", "include", "etc", "pkg", "src", "registry",
    "toolchains", "conda-meta", "pyvenv.cfg", "VERSION", "go.env",
)  # fmt: skip
"""What of a ``…/bin`` folder's prefix is opened for the programs in it (Python venvs, Node,
Go, Cargo's registry, conda): the rest of the prefix stays hidden."""
PROTECTED_INPUTS = (".ipuaro.json", ".ipuaro")
"""ipuaro's own files in a project: read-only to sandboxed commands (with ``.git``'s config
and hooks, :meth:`SandboxProfile.protected`)."""
HOME_TOOL_FOLDERS = frozenset({"bin", "go", "node_modules", "miniconda3", "anaconda3", "sdk"})
"""Home folders without a dot that hold tools, readable like dot-folders."""
SHARED_HOMES = frozenset({"linuxbrew"})
"""Entries of ``/home`` that hold tools for everyone (Homebrew on Linux), not a person's files."""


@cache
def _abi() -> int:
    return ll.abi_version()


def engine() -> str | None:
    """``"landlock (ABI n)"`` when the kernel can sandbox commands; None when nothing can."""
    abi = _abi()
    return f"landlock (ABI {abi})" if abi >= 1 else None


def home_folder(env: Mapping[str, str] | None = None) -> Path:
    """The home folder of the user the command runs as: ``$HOME``, else the password file."""
    value = (os.environ if env is None else env).get("HOME")
    return Path(value) if value else Path.home()


def is_secret_location(path: Path, home: Path | None = None) -> bool:
    """True if ``path`` (absolute, resolved) is one of the known secret places outside any
    project: :data:`HOME_SECRETS`, :data:`SYSTEM_SECRETS`, or another user's home."""
    home = (home or home_folder()).resolve()
    parts = path.parts
    if len(parts) >= 3 and parts[1] == "etc" and parts[2] in SYSTEM_SECRETS["etc"]:
        return True
    if path.is_relative_to(home):
        rel = path.relative_to(home).as_posix()
        for parent, names in HOME_SECRETS.items():
            for name in names:
                secret = f"{parent}/{name}" if parent else name
                if rel == secret or rel.startswith(secret + "/"):
                    return True
        return False
    if len(parts) >= 3 and parts[1] == "home":
        return parts[2] not in SHARED_HOMES and not home.is_relative_to(Path("/home", parts[2]))
    return len(parts) >= 2 and parts[1] == "root"


@dataclass
class SandboxProfile:
    """What commands run for one project may touch. Build with :meth:`for_project`."""

    name: ProfileName
    root: Path
    network: bool = False
    readable: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()
    home: Path = field(default_factory=home_folder)
    temp: Path | None = None
    _rules: list[tuple[str, int]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def for_project(
        cls,
        root: Path,
        config: SandboxConfig | None = None,
        *,
        name: ProfileName | None = None,
        env: Mapping[str, str] | None = None,
    ) -> SandboxProfile:
        from ipuaro.config.schema import SandboxConfig

        config = config or SandboxConfig()
        home = home_folder(env)

        def expand(items: Iterable[str]) -> tuple[Path, ...]:
            return tuple(Path(str(home) + item[1:]) if item.startswith("~") else Path(item)
                         for item in items)  # fmt: skip

        return cls(
            name or config.profile,
            Path(root).resolve(),
            config.network,
            expand(config.readable) + toolchain_folders(env, home),
            expand(config.writable),
            home,
        )

    @property
    def active(self) -> bool:
        """True when commands really run confined (a profile other than ``off`` and an engine)."""
        return self.name != "off" and engine() is not None

    def with_network(self, network: bool) -> SandboxProfile:
        """The same profile with TCP allowed or not (one command the user let online); it
        shares the private temp folder."""
        self.private_temp()
        return replace(self, network=network)

    def private_temp(self) -> Path:
        """The profile's own temp folder (made on first use, removed when ipuaro exits)."""
        if self.temp is None or not self.temp.is_dir():
            self.temp = Path(tempfile.mkdtemp(prefix="ipuaro-sandbox-"))
            atexit.register(shutil.rmtree, self.temp, True)
        return self.temp

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` with ``TMPDIR`` (and ``TMP``/``TEMP``) in the private temp folder."""
        if not self.active:
            return dict(env)
        temp = str(self.private_temp())
        return {**env, "TMPDIR": temp, "TMP": temp, "TEMP": temp}

    def rules(self) -> list[tuple[str, int]]:
        """The Landlock rules: (path, rights) pairs, the only accesses the command gets.
        Worked out once per profile (a folder made later in ``/`` or the home folder is not
        readable until ipuaro restarts)."""
        if self._rules is None:
            self._rules = self._work_out_rules()
        return self._rules

    def _work_out_rules(self) -> list[tuple[str, int]]:
        rules: list[tuple[str, int]] = []
        read, write = ll.READ, WRITE
        rules.append(("/", ll.READ_DIR))  # names can be listed; content needs a rule below
        for entry in _entries(Path("/")):
            if entry.name in _HIDDEN_TOP:
                continue
            if entry.name in SYSTEM_SECRETS:
                rules.append((str(entry), ll.READ_DIR))
                rules += _except(entry, SYSTEM_SECRETS[entry.name], read)
            elif entry.name == "dev":
                rules.append((str(entry), read | ll.IOCTL_DEV))
                rules += [(f"/dev/{name}", ll.FILE_RIGHTS) for name in DEVICE_FILES]
                rules.append(("/dev/pts", read | ll.WRITE_FILE | ll.IOCTL_DEV))
            else:
                rules.append((str(entry), read))
        rules += self._home_rules()
        rules += [(f"/home/{name}", read) for name in sorted(SHARED_HOMES)]
        rules += [(str(path), read) for path in self.readable]
        for path in (self.private_temp(), *self.writable):
            rules.append((str(path), write))
        rules.append((str(self.root), write if self.name == "workspace" else read))
        if self.name == "workspace":
            rules += [(str(path), write) for path in linked_git_dirs(self.root, self.home)]
        return rules

    def _home_rules(self) -> list[tuple[str, int]]:
        home = self.home
        if not home.is_dir():
            return []
        rules = [(str(home), ll.READ_DIR)]
        nested = {parent: names for parent, names in HOME_SECRETS.items() if parent}
        for entry in _entries(home):
            name = entry.name
            if name in HOME_SECRETS[""]:
                continue
            if not name.startswith(".") and name not in HOME_TOOL_FOLDERS:
                continue
            inner = {
                "" if parent == name else parent.removeprefix(name + "/"): names
                for parent, names in nested.items()
                if parent == name or parent.startswith(name + "/")
            }
            rules += _filtered(entry, inner) if inner else [(str(entry), ll.READ)]
        return rules

    def protected(self) -> tuple[list[str], list[str]]:
        """(pinned, read-only) paths for :mod:`ipuaro.security.sandboxing.confine`: git's and
        ipuaro's own inputs, which a command must not rewrite for the next process to obey. Pinned
        (``.git``) stays writable but cannot be renamed away or replaced."""
        if self.name != "workspace":
            return [], []  # nothing in the project is writable anyway
        root = self.root
        read_only = [str(root / name) for name in PROTECTED_INPUTS]
        git_dirs = [root / ".git"] if (root / ".git").is_dir() else []
        git_dirs += linked_git_dirs(root, self.home)
        for folder in git_dirs:
            read_only += [str(folder / "config"), str(folder / "hooks")]
        return [str(root / ".git")], read_only

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` to start instead of ``argv`` (unchanged when the profile is not active)."""
        return sandboxed_argv(self, argv)

    def describe(self) -> str:
        """One line for ``ipuaro doctor`` and the status bar."""
        if self.name == "off":
            return "sandbox off (commands can write anywhere you can)"
        found = engine()
        if found is None:
            return f"sandbox {self.name}: no engine (Landlock missing); unknown commands ask"
        network = "network on" if self.network else "network off"
        return f"sandbox {self.name} via {found}, {network}"


def status_label(name: ProfileName) -> str:
    """The status bar's word for the sandbox: the profile, or a warning when commands run
    unconfined (``off`` chosen by the user, or no engine on this machine)."""
    if name == "off":
        return "⚠ sandbox off"
    if engine() is None:
        return "⚠ no sandbox"
    return f"sandbox: {name}"


def sandboxed_argv(profile: SandboxProfile, argv: list[str]) -> list[str]:
    """The argv that runs ``argv`` confined by ``profile`` (``argv`` itself when inactive).

    The launcher is :mod:`ipuaro.security.sandboxing.landlock` run as a script by this Python with
    ``-I -S``, so it starts without ipuaro's imports; the command ``exec``s in its place.
    """
    if not argv:
        raise ValueError("sandboxed_argv needs a command to run")
    if not profile.active:
        return list(argv)
    pinned, read_only = profile.protected()
    spec = ll.launcher_args(
        profile.rules(), network=profile.network, pinned=pinned, read_only=read_only
    )
    return [sys.executable, "-I", "-S", str(LAUNCHER), *spec, "--", *argv]


def toolchain_folders(env: Mapping[str, str] | None, home: Path) -> tuple[Path, ...]:
    """Folders the commands' programs live in, readable even where the profile hides their
    parent (a virtualenv or a checkout under ``/tmp`` or the home folder): ipuaro's own Python
    prefixes, and each ``PATH`` folder; for a ``…/bin``, only the parts of its prefix a
    toolchain reads (:data:`TOOLCHAIN_PARTS`: ``lib``, ``share``…), never the prefix itself —
    ``~/.cargo/credentials.toml`` sits beside ``~/.cargo/bin``. The home folder itself, secret
    locations and any folder holding one are never opened this way."""
    path_value = (os.environ if env is None else env).get("PATH", "")
    found: list[Path] = [Path(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
    for entry in path_value.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # a relative PATH entry means the command's own folder: not a toolchain
        folder = Path(entry)
        found.append(folder)
        if folder.name == "bin":
            found += [folder.parent / part for part in TOOLCHAIN_PARTS]
    home = home.resolve()
    secrets = [home / parent / name for parent, names in HOME_SECRETS.items() for name in names]
    chosen: list[Path] = []
    for folder in found:
        try:
            resolved = folder.resolve()
        except OSError:
            continue
        if not resolved.exists() or resolved in (home, Path("/")) or resolved in chosen:
            continue
        if resolved.parent == Path("/") and resolved.name in _HIDDEN_TOP:
            continue  # all of /tmp or /home is never a toolchain
        if is_secret_location(resolved, home):
            continue
        if any(secret.is_relative_to(resolved) for secret in secrets):
            continue  # ~/.local/share holds keyrings: the home rules open it, minus them
        chosen.append(resolved)
    return tuple(chosen)


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def _except(folder: Path, hidden: Iterable[str], rights: int) -> list[tuple[str, int]]:
    names = set(hidden)
    return [(str(entry), rights) for entry in _entries(folder) if entry.name not in names]


def _filtered(folder: Path, secrets: dict[str, frozenset[str]]) -> list[tuple[str, int]]:
    """Read rules for ``folder`` minus ``secrets`` ({relative parent: names}, "" for itself)."""
    rules = [(str(folder), ll.READ_DIR)]
    here = {name for name in secrets.get("", frozenset()) if "/" not in name}
    deeper = {name.split("/", 1)[0] for name in secrets.get("", frozenset()) if "/" in name}
    children = {p.split("/", 1)[0] for p in secrets if p}
    for entry in _entries(folder):
        if entry.name in here:
            continue
        if entry.name in deeper or entry.name in children:
            inner: dict[str, frozenset[str]] = {}
            for parent, names in secrets.items():
                if parent == entry.name:
                    inner[""] = inner.get("", frozenset()) | names
                elif parent.startswith(entry.name + "/"):
                    inner[parent.removeprefix(entry.name + "/")] = names
            for name in secrets.get("", frozenset()):
                if name.startswith(entry.name + "/"):
                    rest = frozenset({name.removeprefix(entry.name + "/")})
                    inner[""] = inner.get("", frozenset()) | rest
            rules += _filtered(entry, inner) if entry.is_dir() else []
            continue
        rules.append((str(entry), ll.READ))
    return rules
