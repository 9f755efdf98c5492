"""A plan's unified-diff ``patch`` turned into actions (used when the plan has no actions).

Each file section (``--- a/x`` / ``+++ b/x``) becomes one action: ``/dev/null`` before is a
CREATE_FILE, after a DELETE_FILE, otherwise an UPDATE_FILE whose content is the file with every
hunk applied. A hunk is placed where its header says when its old lines stand there exactly
(shifted by the hunks before it); otherwise through the same tolerant matching as the
``replace`` tool (exact and unique, then ignoring whitespace and indentation, then a fuzzy match
that must be unique). A hunk that cannot be placed is ``ERR_PATCH_HUNK`` naming the file, the
hunk's number and header, and why; a text that is not a unified diff is ``ERR_PATCH_INVALID``.
The actions then go through the same checks as any plan's (``ERR_UPDATE_WITHOUT_BASE`` too).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ipuaro.domain.plan import Action
from ipuaro.planning.actions import ActionError, PlanInvalid

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file"


@dataclass
class Hunk:
    header: str
    old_start: int
    new_start: int
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    old_ends_without_newline: bool = False
    new_ends_without_newline: bool = False


@dataclass
class FilePatch:
    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def _strip_prefix(name: str) -> str | None:
    name = name.split("\t", 1)[0].strip()
    if name == "/dev/null":
        return None
    if name.startswith(("a/", "b/")):
        return name[2:]
    return name


def _invalid(why: str) -> PlanInvalid:
    return PlanInvalid([ActionError("ERR_PATCH_INVALID", f"ERR_PATCH_INVALID: the patch {why}")])


def parse_patch(text: str) -> list[FilePatch]:
    """The file sections of a unified diff (``diff --git`` and ``index`` lines skipped)."""
    lines = text.replace("\r\n", "\n").split("\n")
    files: list[FilePatch] = []
    current: FilePatch | None = None
    hunk: Hunk | None = None
    # Lines the hunk header announced and not yet seen: a blank line inside that count is an
    # empty context line whose leading space an editor trimmed.
    old_left = new_left = 0
    index = 0
    while index < len(lines):
        line = lines[index]
        if (
            line.startswith("--- ")
            and index + 1 < len(lines)
            and lines[index + 1].startswith("+++ ")
        ):
            current = FilePatch(_strip_prefix(line[4:]), _strip_prefix(lines[index + 1][4:]))
            if current.old_path is None and current.new_path is None:
                raise _invalid(f"names /dev/null on both sides (line {index + 1})")
            files.append(current)
            hunk = None
            index += 2
            continue
        match = _HUNK.match(line)
        if match:
            if current is None:
                raise _invalid(
                    f"has a hunk before any '--- a/FILE' / '+++ b/FILE' (line {index + 1})"
                )
            hunk = Hunk(line, int(match.group(1)), int(match.group(3)))
            old_left = int(match.group(2) or 1)
            new_left = int(match.group(4) or 1)
            current.hunks.append(hunk)
        elif hunk is not None and line.startswith((" ", "-", "+")) and not line.startswith("--- "):
            if line[0] in " -":
                old_left -= 1
            if line[0] in " +":
                new_left -= 1
            body = line[1:]
            if line[0] in " -":
                hunk.old.append(body)
            if line[0] in " +":
                hunk.new.append(body)
        elif hunk is not None and line == "" and (old_left > 0 or new_left > 0):
            old_left, new_left = old_left - 1, new_left - 1
            hunk.old.append("")  # an empty context line whose leading space was trimmed
            hunk.new.append("")
        elif hunk is not None and line.startswith(_NO_NEWLINE):
            previous = lines[index - 1][:1]
            if previous in (" ", "-"):
                hunk.old_ends_without_newline = True
            if previous in (" ", "+"):
                hunk.new_ends_without_newline = True
        index += 1
    if not files:
        raise _invalid("has no file section ('--- a/FILE' then '+++ b/FILE'); send a unified diff")
    for patch in files:
        if not patch.hunks and patch.new_path is not None:
            raise _invalid(f"section for {patch.path} has no hunk ('@@ -l,n +l,n @@')")
    return files


def patch_actions(text: str, read: Callable[[str], str | None]) -> list[Action]:
    """Actions equivalent to the patch, given ``read(path)`` → the file's text now (None when
    there is no such file). Raises :class:`PlanInvalid` with every hunk that does not apply."""
    actions: list[Action] = []
    errors: list[ActionError] = []
    for patch in parse_patch(text):
        if patch.new_path is None:
            actions.append(Action("DELETE_FILE", patch.old_path or ""))
            continue
        if patch.old_path is None:
            content = "\n".join(line for hunk in patch.hunks for line in hunk.new)
            ends_open = patch.hunks[-1].new_ends_without_newline
            actions.append(
                Action("CREATE_FILE", patch.new_path, content + ("" if ends_open else "\n"))
            )
            continue
        current = read(patch.old_path)
        if current is None:
            errors.append(
                ActionError(
                    "ERR_PATCH_HUNK",
                    f"ERR_PATCH_HUNK: {patch.old_path}: the patch changes a file that does not "
                    "exist; use '--- /dev/null' to create it",
                    path=patch.old_path,
                )
            )
            continue
        try:
            content = apply_hunks(patch.old_path, current, patch.hunks)
        except PlanInvalid as failed:
            errors.extend(failed.errors)
            continue
        actions.append(Action("UPDATE_FILE", patch.new_path, content))
    if errors:
        raise PlanInvalid(errors)
    return actions


def apply_hunks(path: str, text: str, hunks: list[Hunk]) -> str:
    """``text`` with every hunk applied in order; the file keeps its EOL style."""
    from ipuaro.edits.matching import MatchError, find_and_replace
    from ipuaro.edits.text import Lines

    original = Lines.of(text)
    lines = list(original.lines)
    offset = 0
    final_newline = original.final_newline
    for number, hunk in enumerate(hunks, 1):
        start = hunk.old_start - 1 + offset if hunk.old_start > 0 else 0
        if lines[start : start + len(hunk.old)] == hunk.old and start >= 0:
            lines[start : start + len(hunk.old)] = hunk.new
        elif not any(line.strip() for line in hunk.old):
            if not 0 <= start <= len(lines):
                raise _hunk_error(path, number, hunk, f"line {hunk.old_start} is past the end")
            lines[start : start + len(hunk.old)] = hunk.new
        else:
            try:
                result = find_and_replace(lines, "\n".join(hunk.old), "\n".join(hunk.new))
            except MatchError as error:
                raise _hunk_error(path, number, hunk, str(error)) from None
            lines = result.lines
        offset += len(hunk.new) - len(hunk.old)
        if hunk.new_ends_without_newline:
            final_newline = False
        elif hunk.old_ends_without_newline:
            final_newline = True
    body = original.with_lines(lines)
    if lines and final_newline and not body.endswith(("\n", "\r")):
        body += original.eol
    elif lines and not final_newline:
        for end in ("\r\n", "\n", "\r"):
            if body.endswith(end):
                return body[: -len(end)]
    return body


def _hunk_error(path: str, number: int, hunk: Hunk, why: str) -> PlanInvalid:
    first_line = why.strip().splitlines()[0] if why.strip() else why
    rest = "\n".join(why.strip().splitlines()[1:])
    message = f"ERR_PATCH_HUNK: {path}: hunk {number} ({hunk.header}) does not apply: {first_line}"
    if rest:
        message += "\n" + rest
    return PlanInvalid([ActionError("ERR_PATCH_HUNK", message, path=path)])
