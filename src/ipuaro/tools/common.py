"""What many tools share: resolving a path the model gave, reading a file from the store (the
index is the truth), asking before a secret is read, and "did you mean" suggestions."""

from __future__ import annotations

import difflib
import posixpath
from dataclasses import dataclass
from pathlib import Path

from ipuaro.domain import FileData
from ipuaro.tools.base import ConfirmDecision, ConfirmRequest, ToolContext, ToolError, ToolRefused

MAX_SUGGESTIONS = 5


def suggest_paths(ctx: ToolContext, wanted: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
    """Indexed paths closest to ``wanted``: same file name first, then similar names/paths."""
    paths = list(ctx.store.file_hashes())
    if not paths:
        return []
    wanted = wanted.strip().strip("/").removeprefix("./")
    base = posixpath.basename(wanted).lower()
    same_name = sorted((p for p in paths if posixpath.basename(p).lower() == base), key=len)
    by_name: dict[str, list[str]] = {}
    for path in paths:
        by_name.setdefault(posixpath.basename(path).lower(), []).append(path)
    close_names = difflib.get_close_matches(base, list(by_name), n=limit, cutoff=0.6)
    similar = [p for name in close_names for p in sorted(by_name[name], key=len)]
    close_paths = difflib.get_close_matches(wanted, paths, n=limit, cutoff=0.6)
    ordered: list[str] = []
    for path in [*same_name, *close_paths, *similar]:
        if path not in ordered:
            ordered.append(path)
    return ordered[:limit]


def did_you_mean(ctx: ToolContext, wanted: str) -> str:
    candidates = suggest_paths(ctx, wanted)
    if not candidates:
        return "Use get_structure or find_files to see which files exist."
    return "Did you mean: " + ", ".join(candidates) + "?"


def project_path(ctx: ToolContext, path: str) -> str:
    """The model's path as a project-relative POSIX path (refused paths raise ToolError)."""
    from ipuaro.security.policy.paths import PathRefused

    try:
        return ctx.paths.resolve(path).rel
    except PathRefused as error:
        raise ToolError(error.reason) from None


def folder_prefix(ctx: ToolContext, path: str | None) -> str | None:
    """A folder or file filter for project-wide tools; None means the whole project."""
    if path is None or path.strip() in ("", ".", "./", "/"):
        return None
    rel = project_path(ctx, path)
    return None if rel == "." else rel


@dataclass(frozen=True)
class StoredFile:
    path: str
    data: FileData


def _why_not_indexed(ctx: ToolContext, rel: str) -> str:
    where = ctx.root / rel
    try:
        if where.is_dir():
            return f"{rel} is a directory; use get_structure(path={rel!r}) to list it."
        exists = where.exists()
        if exists and not _is_utf8(where):
            return f"{rel} is not UTF-8 text; ipuaro skips such files (convert it to UTF-8)."
    except OSError as error:  # an unreadable folder on the way, a name too long: no traceback
        return f"{rel} cannot be read: {error.strerror or error}."
    hint = did_you_mean(ctx, rel)
    if exists:
        return (
            f"{rel} exists but is not in the index (ignored by .gitignore or "
            f"project.ignorePatterns, or not indexed yet). {hint}"
        )
    return f"File not found: {rel}. {hint}"


def _is_utf8(path: Path, sample: int = 1 << 20) -> bool:
    with path.open("rb") as handle:
        head = handle.read(sample)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        # A character cut at the end of a full sample is not an encoding error.
        return len(head) == sample and error.start >= sample - 3
    return True


async def read_stored(ctx: ToolContext, path: str) -> StoredFile:
    """The indexed file at ``path``, after the secret check. Missing files raise a ToolError
    with the closest indexed paths."""
    rel = project_path(ctx, path)
    data = ctx.store.get_file(rel)
    if data is None:
        raise ToolError(_why_not_indexed(ctx, rel))
    await ensure_secret_allowed(ctx, rel)
    return StoredFile(rel, data)


async def ensure_secret_allowed(ctx: ToolContext, rel: str) -> None:
    """Secret files (``.env``, keys) reach the model only with the user's allowance."""
    if not ctx.paths.is_secret(rel) or ctx.grants.allows_secret(rel):
        return
    if ctx.confirm is None:
        raise ToolRefused(
            f"{rel} is a secret file (keys, .env); its content is not read without the "
            "user's allowance, and nobody can be asked in this run."
        )
    request = ConfirmRequest(
        kind="read_secret",
        title=f"Read secret file {rel}?",
        description=f"The model asked to read {rel}, which may hold secrets. Its content "
        "would be sent to the model.",
    )
    answer = await ctx.confirm(request)
    decision = answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)
    if decision.choice == "reject":
        raise ToolRefused(f"the user did not allow reading the secret file {rel}.")
    if decision.choice == "always":
        ctx.grants.grant_secret(rel)


def text_only(stored: StoredFile) -> list[str]:
    if stored.data.kind == "binary":
        raise ToolError(
            f"{stored.path} is kept as metadata only ({stored.data.size:,} bytes: a binary file, "
            "or text above project.maxFileBytes); no text. For a huge text file, read a part "
            f"with run_command, e.g. `sed -n '1,40p' {stored.path}`."
        )
    if stored.data.kind == "symlink":
        raise ToolError(f"{stored.path} is a symlink to {stored.data.target}; read the target.")
    return stored.data.lines


def short_hash(value: str) -> str:
    return value[:12]


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
