"""What the edit tools share: reading the file to change from disk (the bytes a write will
replace), proposing the change as a :class:`~ipuaro.edits.changeset.Changeset` to the edit
engine (the one write path, plan apply's too) and turning its :class:`EditResult` into a tool
outcome.

An existing secret file (``.env``, ``.npmrc``, keys) is read only with the user's allowance, as
by ``get_lines``: an edit's "closest lines" hint and its diff would otherwise show the secret.
:func:`read_disk_allowed` asks the user; the synchronous :func:`read_disk` refuses when the
allowance was not given yet (``ctx.grants``) and says how to get it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ipuaro.edits.changeset import Changeset
from ipuaro.edits.engine import EditEngine
from ipuaro.edits.text import TextRefused, decode_utf8
from ipuaro.edits.transaction import read_current
from ipuaro.index.scan.reader import content_hash
from ipuaro.tools.base import FileChange, ToolContext, ToolError, ToolOutcome, ToolRefused
from ipuaro.tools.common import did_you_mean, ensure_secret_allowed


@dataclass(frozen=True)
class DiskFile:
    rel: str
    text: str | None
    """None when there is no file."""
    hash: str | None


def writable(ctx: ToolContext, path: str, *, deleting: bool = False) -> str:
    from ipuaro.security.policy.paths import PathRefused, ProtectedPath

    try:
        if deleting:
            return ctx.paths.check_deletable(path).rel
        return ctx.paths.check_writable(path).rel
    except ProtectedPath as error:  # policy, not a wrong argument: the model may go around it
        raise ToolRefused(error.reason) from None
    except PathRefused as error:
        raise ToolError(error.reason) from None


def read_disk(
    ctx: ToolContext, path: str, *, deleting: bool = False, secret_allowed: bool = False
) -> DiskFile:
    """``secret_allowed``: the user already allowed this read (once) for this call."""
    rel = writable(ctx, path, deleting=deleting)
    target = ctx.root / rel
    if target.is_dir():
        raise ToolError(f"{rel} is a directory, not a file.")
    data = read_current(target)
    if data is None:
        return DiskFile(rel, None, None)
    if ctx.paths.is_secret(rel) and not ctx.grants.allows_secret(rel) and not secret_allowed:
        raise ToolRefused(
            f"{rel} is a secret file (keys, .env); editing it shows its content, which needs "
            "the user's allowance first. Ask the user to allow reading it (get_lines on it asks)."
        )
    try:
        text = decode_utf8(data, rel)
    except TextRefused as error:
        raise ToolError(str(error)) from None
    if "\x00" in text:
        raise ToolError(f"{rel} is a binary file; it cannot be edited as text.")
    return DiskFile(rel, text, content_hash(data))


async def read_disk_allowed(ctx: ToolContext, path: str, *, deleting: bool = False) -> DiskFile:
    """:func:`read_disk` after asking the user, when the file is an existing secret."""
    rel = writable(ctx, path, deleting=deleting)
    allowed = False
    if (ctx.root / rel).is_file() and ctx.paths.is_secret(rel):
        await ensure_secret_allowed(ctx, rel)  # raises unless the user allowed it
        allowed = True
    return read_disk(ctx, path, deleting=deleting, secret_allowed=allowed)


def require_existing(ctx: ToolContext, disk: DiskFile) -> str:
    if disk.text is None:
        raise ToolError(
            f"File not found: {disk.rel}. {did_you_mean(ctx, disk.rel)} "
            "(create_file makes a new file.)"
        )
    return disk.text


async def apply_change(ctx: ToolContext, change: FileChange, description: str) -> ToolOutcome:
    result = await EditEngine(ctx).commit(Changeset((change,), description))
    details = {
        "diff": result.diff,
        "files": [
            {"path": c.path, "oldText": c.old_text, "newText": c.new_text} for c in result.files
        ],
    }
    data = {
        "applied": result.applied,
        "paths": [c.path for c in result.files],
        "group": result.group,
    }
    if result.check is not None:
        data["check"] = result.check.to_json()
    diff = result.diff or None
    if result.applied:
        changed = [c.path for c in result.files]
        outcome = ToolOutcome.ok(
            result.message, data=data, details=details, diff=diff, changed=changed
        )
        if result.check is not None and not result.check.clean:
            outcome.check = result.check.report()
        return outcome
    outcome = ToolOutcome.fail(result.message, refused=result.refused, details=details, diff=diff)
    outcome.data = data
    return outcome
