"""A plan's actions checked before anything is written, each failure with a stable code.

Every check runs on every action, so the model (or the user) gets the whole list at once; a
failure names the action (its index, kind and path), what is wrong and what to send instead:

    ERR_UPDATE_WITHOUT_BASE: action 2 (UPDATE_FILE src/app.py): the file was not read while
    planning, so its new content would be written blind; read it (context_requests) and plan again

Codes (``ActionError.code``), by what they guard:

- paths: ``ERR_PATH_EMPTY``, ``ERR_PATH_ABSOLUTE``, ``ERR_PATH_DRIVE``, ``ERR_PATH_UNC``,
  ``ERR_PATH_HOME``, ``ERR_PATH_DOT_SEGMENT``, ``ERR_PATH_TOO_LONG``, ``ERR_PATH_INVALID``
  (control characters, backslashes, look-alikes), ``ERR_PATH_OUTSIDE`` (a symlink leads out),
  ``ERR_PATH_PROTECTED`` (``project.protectedPaths``, via :class:`PathPolicy`);
- limits: ``ERR_TOO_MANY_ACTIONS`` (200), ``ERR_FILE_TOO_LARGE`` (1 MB for one file, the
  size the tools write), ``ERR_CONTENT_TOO_LARGE`` (5 MB in all);
- the plan's shape: ``ERR_UNKNOWN_KIND``, ``ERR_CONFLICTING_ACTIONS`` (two actions on one path
  that do not go together), ``ERR_CONTENT_MISSING``;
- content: ``ERR_CONTENT_NUL``, ``ERR_PSEUDO_BINARY`` (> 10 % non-printable), ``ERR_NOT_UTF8``;
- the disk and the plan's reads: ``ERR_UPDATE_WITHOUT_BASE``, ``ERR_STALE_BASE`` (changed since
  it was read), ``ERR_TARGET_MISSING``, ``ERR_CREATE_EXISTS``, ``ERR_NOT_A_FILE``,
  ``ERR_NOT_A_DIR``, ``ERR_DIR_NOT_EMPTY``.

Patches add ``ERR_PATCH_INVALID`` and ``ERR_PATCH_HUNK`` (``planning.patch``); apply itself
``ERR_NO_PLAN`` and ``ERR_EMPTY_PLAN`` (``planning.apply``). A ``NO_CHANGES:`` summary with no
actions is valid: there is nothing to apply.

Actions run in the order CREATE_DIR → CREATE_FILE / UPDATE_FILE → DELETE_FILE → DELETE_DIR
(folders before the files in them, files removed before their folders), each group in the
plan's order, deeper folders removed first.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.plan import ACTION_KINDS, Action

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ipuaro.security.policy.paths import PathPolicy

MAX_ACTIONS = 200
MAX_TOTAL_CONTENT_BYTES = 5 * 1024 * 1024
MAX_FILE_CONTENT_BYTES = 1024 * 1024
MAX_PATH_CHARS = 240

ERROR_CODES: tuple[str, ...] = (
    "ERR_PATH_EMPTY",
    "ERR_PATH_ABSOLUTE",
    "ERR_PATH_DRIVE",
    "ERR_PATH_UNC",
    "ERR_PATH_HOME",
    "ERR_PATH_DOT_SEGMENT",
    "ERR_PATH_TOO_LONG",
    "ERR_PATH_INVALID",
    "ERR_PATH_OUTSIDE",
    "ERR_PATH_PROTECTED",
    "ERR_TOO_MANY_ACTIONS",
    "ERR_FILE_TOO_LARGE",
    "ERR_CONTENT_TOO_LARGE",
    "ERR_UNKNOWN_KIND",
    "ERR_CONFLICTING_ACTIONS",
    "ERR_CONTENT_MISSING",
    "ERR_CONTENT_NUL",
    "ERR_PSEUDO_BINARY",
    "ERR_NOT_UTF8",
    "ERR_UPDATE_WITHOUT_BASE",
    "ERR_STALE_BASE",
    "ERR_TARGET_MISSING",
    "ERR_CREATE_EXISTS",
    "ERR_NOT_A_FILE",
    "ERR_NOT_A_DIR",
    "ERR_DIR_NOT_EMPTY",
    "ERR_PATCH_INVALID",
    "ERR_PATCH_HUNK",
    "ERR_NO_PLAN",
    "ERR_EMPTY_PLAN",
)
"""Every code apply can report; stable (golden traces and scripts match on them)."""

_ORDER = {"CREATE_DIR": 0, "CREATE_FILE": 1, "UPDATE_FILE": 1, "DELETE_FILE": 2, "DELETE_DIR": 3}
_DRIVE = re.compile(r"^[A-Za-z]:")
_FILE_KINDS = frozenset({"CREATE_FILE", "UPDATE_FILE"})


def file_sha256(text: str) -> str:
    """What ``PlanRecord.read_files`` holds for a file: sha256 of its whole text as UTF-8."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def base_hashes(text: str) -> set[str]:
    """What a ``read_files`` entry of an unchanged file may hold: the hash of its text, or of
    the text with its line ends as ``\n`` (the form a reader that split lines handed on)."""
    plain = text.replace("\r\n", "\n").replace("\r", "\n")
    return {file_sha256(text), file_sha256(plain)}


@dataclass(frozen=True)
class ActionError:
    code: str
    message: str
    """The whole line for the user and the model: code, the action, why, what to do."""
    index: int | None = None
    """1-based position in the plan's actions (None: the plan as a whole)."""
    path: str | None = None


class PlanInvalid(IpuaroError):
    """The plan cannot be applied; ``errors`` lists every reason (nothing was written)."""

    def __init__(self, errors: Sequence[ActionError]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(error.message for error in self.errors))

    @property
    def codes(self) -> list[str]:
        return [error.code for error in self.errors]


def describe(index: int, action: Action) -> str:
    shown = action.path if len(action.path) <= 80 else action.path[:77] + "..."
    return f"action {index} ({action.kind} {shown or '<empty path>'})"


def _error(code: str, index: int, action: Action, why: str) -> ActionError:
    return ActionError(code, f"{code}: {describe(index, action)}: {why}", index, action.path)


def ordered(actions: Sequence[Action]) -> list[Action]:
    """CREATE_DIR (shallow first) → CREATE/UPDATE → DELETE_FILE → DELETE_DIR (deep first)."""

    def key(item: tuple[int, Action]) -> tuple[int, int, int]:
        position, action = item
        depth = len(PurePosixPath(action.path).parts)
        if action.kind == "CREATE_DIR":
            return (0, depth, position)
        if action.kind == "DELETE_DIR":
            return (3, -depth, position)
        return (_ORDER.get(action.kind, 1), 0, position)

    return [action for _, action in sorted(enumerate(actions), key=key)]


def normal_path(path: str) -> str:
    """The path as the plan's actions are compared by (a trailing ``/`` dropped)."""
    return path.rstrip("/") if path.strip("/") else path


def check_spelling(index: int, action: Action) -> ActionError | None:
    """The path rules that need no disk: the specific codes of papa-yu's contract."""
    path = action.path
    if not isinstance(path, str) or not path.strip():
        return _error("ERR_PATH_EMPTY", index, action, "the path is empty; name a file or folder")
    if len(path) > MAX_PATH_CHARS:
        return _error(
            "ERR_PATH_TOO_LONG",
            index,
            action,
            f"the path has {len(path)} characters (at most {MAX_PATH_CHARS})",
        )
    if path.startswith(("//", "\\\\")):
        return _error("ERR_PATH_UNC", index, action, "a UNC/network path is outside the project")
    if _DRIVE.match(path):
        return _error(
            "ERR_PATH_DRIVE", index, action, "a Windows drive path is outside the project"
        )
    if path.startswith("~"):
        return _error("ERR_PATH_HOME", index, action, "'~' (a home directory) is not the project")
    if path.startswith(("/", "\\")):
        return _error(
            "ERR_PATH_ABSOLUTE",
            index,
            action,
            "the path is absolute; give it relative to the project root",
        )
    parts = normal_path(path).replace("\\", "/").split("/")
    if any(part in ("..", ".") for part in parts):
        return _error(
            "ERR_PATH_DOT_SEGMENT",
            index,
            action,
            "'.' and '..' segments are not allowed; give the path from the project root",
        )
    return None


def check_content(index: int, action: Action) -> ActionError | None:
    from ipuaro.security.policy.content import MAX_NON_PRINTABLE_RATIO, ContentRefused, check_text

    if action.kind not in _FILE_KINDS:
        return None
    if action.content is None:
        return _error(
            "ERR_CONTENT_MISSING",
            index,
            action,
            f"{action.kind} needs `content`: the whole new text of the file",
        )
    text = action.content
    if "\x00" in text:
        return _error(
            "ERR_CONTENT_NUL",
            index,
            action,
            f"the content holds a NUL byte (at character {text.index(chr(0))}); binary data "
            "cannot be written as a plan action",
        )
    try:
        check_text(text, action.path)
    except ContentRefused as refused:
        if "non-printable" in refused.why:
            return _error(
                "ERR_PSEUDO_BINARY",
                index,
                action,
                f"{refused.why} (more than {MAX_NON_PRINTABLE_RATIO:.0%} is refused)",
            )
        return _error("ERR_NOT_UTF8", index, action, refused.why)
    return None


def check_conflicts(actions: Sequence[Action]) -> list[ActionError]:
    """Two actions on one path (each path is one action: a file is created or updated once,
    and deleting and writing one path in one plan has no order a reader can follow), or a
    write inside a folder the plan deletes."""
    errors: list[ActionError] = []
    first: dict[str, tuple[int, Action]] = {}
    for index, action in enumerate(actions, 1):
        key = normal_path(action.path)
        if not key.strip():
            continue
        if key in first:
            other_index, other = first[key]
            same = other.kind == action.kind
            why = (
                f"the path appears twice as {action.kind} (also action {other_index})"
                if same
                else f"{other.kind} (action {other_index}) and {action.kind} on one path "
                "cannot both apply"
            )
            fix = "; merge them into one action" if same else "; keep one of them"
            errors.append(_error("ERR_CONFLICTING_ACTIONS", index, action, why + fix))
            continue
        first[key] = (index, action)
    deleted_dirs = [
        (i, normal_path(a.path)) for i, a in enumerate(actions, 1) if a.kind == "DELETE_DIR"
    ]
    for index, action in enumerate(actions, 1):
        if action.kind in ("CREATE_FILE", "UPDATE_FILE", "CREATE_DIR"):
            key = normal_path(action.path)
            for dir_index, folder in deleted_dirs:
                if key.startswith(folder + "/"):
                    errors.append(
                        _error(
                            "ERR_CONFLICTING_ACTIONS",
                            index,
                            action,
                            f"it writes inside {folder}, which action {dir_index} deletes",
                        )
                    )
    return errors


def check_limits(actions: Sequence[Action]) -> list[ActionError]:
    errors: list[ActionError] = []
    if len(actions) > MAX_ACTIONS:
        errors.append(
            ActionError(
                "ERR_TOO_MANY_ACTIONS",
                f"ERR_TOO_MANY_ACTIONS: the plan has {len(actions)} actions (at most "
                f"{MAX_ACTIONS}); split the change into smaller plans",
            )
        )
    sizes = [len((a.content or "").encode("utf-8", "surrogatepass")) for a in actions]
    for index, (action, size) in enumerate(zip(actions, sizes, strict=True), 1):
        if size > MAX_FILE_CONTENT_BYTES:
            errors.append(
                _error(
                    "ERR_FILE_TOO_LARGE",
                    index,
                    action,
                    f"the content is {size:,} bytes (at most {MAX_FILE_CONTENT_BYTES:,} for one "
                    "file); generated or data files this big are not written from a plan",
                )
            )
    total = sum(sizes)
    if total > MAX_TOTAL_CONTENT_BYTES:
        errors.append(
            ActionError(
                "ERR_CONTENT_TOO_LARGE",
                f"ERR_CONTENT_TOO_LARGE: the actions' content is {total:,} bytes in all (at "
                f"most {MAX_TOTAL_CONTENT_BYTES:,}); split the change into smaller plans",
            )
        )
    return errors


@dataclass(frozen=True)
class Target:
    """An action whose path is proven inside the project."""

    action: Action
    index: int
    rel: str
    abs: Path


def check_policy(index: int, action: Action, paths: PathPolicy) -> Target | ActionError:
    """The project's own path rules: inside the root (symlinks followed), not protected."""
    from ipuaro.security.policy.paths import PathRefused, ProtectedPath

    path = normal_path(action.path)
    try:
        if action.kind in ("DELETE_FILE", "DELETE_DIR"):
            resolved = paths.check_deletable(path)
        else:
            resolved = paths.check_writable(path)
    except ProtectedPath as refused:
        return _error(
            "ERR_PATH_PROTECTED",
            index,
            action,
            f"{refused.why}; protected files can be read but not created, changed or deleted",
        )
    except PathRefused as refused:
        code = "ERR_PATH_OUTSIDE" if "outside" in refused.why else "ERR_PATH_INVALID"
        return _error(code, index, action, refused.why)
    return Target(action, index, resolved.rel, resolved.abs)


def check_disk(
    target: Target,
    actions: Sequence[Action],
    read_files: Mapping[str, str],
    current: str | None,
    root: Path,
) -> ActionError | None:
    """The action against the disk: what it updates exists and was read, unchanged since;
    what it creates is not there yet; a folder it deletes is empty once the plan ran.
    ``current`` is the file's text now (None when absent or not a text file)."""
    action, index, where = target.action, target.index, target.abs
    if action.kind == "CREATE_DIR":
        if where.exists() and not where.is_dir():
            return _error("ERR_NOT_A_DIR", index, action, "a file of that name exists")
        return None
    if action.kind == "DELETE_DIR":
        if not where.exists():
            return _error("ERR_TARGET_MISSING", index, action, "there is no such folder")
        if not where.is_dir():
            return _error("ERR_NOT_A_DIR", index, action, "it is a file; use DELETE_FILE")
        return _left_in_folder(target, actions, root)
    if where.is_dir():
        return _error("ERR_NOT_A_FILE", index, action, "it is a folder, not a file")
    if action.kind == "CREATE_FILE":
        if where.exists():
            return _error(
                "ERR_CREATE_EXISTS",
                index,
                action,
                "the file exists already; use UPDATE_FILE (after reading it) to change it",
            )
        return None  # folders on the way are created with the file, as the tools do
    if not where.exists():
        created = {normal_path(a.path) for a in actions if a.kind == "CREATE_FILE"}
        if normal_path(action.path) in created:
            return None  # the plan creates it: ERR_CONFLICTING_ACTIONS already says so
        return _error(
            "ERR_TARGET_MISSING",
            index,
            action,
            "the file does not exist and the plan does not create it"
            + ("; use CREATE_FILE for a new file" if action.kind == "UPDATE_FILE" else ""),
        )
    if action.kind == "UPDATE_FILE":
        base = read_files.get(target.rel) or read_files.get(normal_path(action.path))
        if base is None:
            return _error(
                "ERR_UPDATE_WITHOUT_BASE",
                index,
                action,
                "the file was not read while planning, so its new content would be written "
                "blind; read it (context_requests: read_file) and plan again",
            )
        if current is None:
            return _error("ERR_NOT_UTF8", index, action, "the file on disk is not UTF-8 text")
        if base not in base_hashes(current):
            return _error(
                "ERR_STALE_BASE",
                index,
                action,
                "the file changed on disk after the model read it (stale plan); plan again "
                "so the change is made to the current text",
            )
    return None


def _left_in_folder(target: Target, actions: Sequence[Action], root: Path) -> ActionError | None:
    """Files the folder still holds once the plan's own deletes ran (a few, for the message)."""
    removed = {normal_path(a.path) for a in actions if a.kind == "DELETE_FILE"}
    left: list[str] = []
    for dirpath, _dirnames, filenames in os.walk(target.abs):
        for name in filenames:
            rel = Path(dirpath, name).relative_to(root).as_posix()
            if rel not in removed:
                left.append(rel)
        if len(left) > 5:
            break
    if not left:
        return None
    shown = ", ".join(left[:5]) + (" …" if len(left) > 5 else "")
    return _error(
        "ERR_DIR_NOT_EMPTY",
        target.index,
        target.action,
        f"the folder still holds {shown} after the plan's deletes; add a DELETE_FILE for "
        "each file it should lose (each is shown in the diff, and undone with the rest)",
    )


def check_kind(index: int, action: Action) -> ActionError | None:
    if action.kind not in ACTION_KINDS:
        return _error(
            "ERR_UNKNOWN_KIND",
            index,
            action,
            f"unknown kind {action.kind!r}; use one of {', '.join(ACTION_KINDS)}",
        )
    return None
