"""Engineering memory in the core: a ``memory_patch`` is checked, shown to the user as an
:class:`~ipuaro.core.decisions.ApplyMemory` question and written only on ``apply``; ``/memory``
shows the memory (every key, its value and the file it comes from) and changes it.

The patch comes from the model's ``remember`` tool or from a plan's ``memory_patch`` (both
through :meth:`Workspace.propose_memory_patch`); ``/memory set`` is the user's own word and is
written without a question, through the same checks. Headless runs answer the question by
``--remember`` (see ``ipuaro.headless``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.core.decisions import Answer, ApplyMemory, Question
from ipuaro.core.replies import Reply, ReplyTable
from ipuaro.memory import (
    KEYS,
    PROJECT_FILE,
    EngineeringMemory,
    InvalidValue,
    MemoryFileError,
    PatchCheck,
    PatchReport,
    apply_changes,
    check_patch,
    load_memory,
    parse_text,
    spec_for,
)
from ipuaro.memory.keys import key_list, to_json
from ipuaro.memory.patch import shown_value

if TYPE_CHECKING:
    from ipuaro.core.ports import CommandHost

Ask = Callable[[Question], Awaitable[Answer]]

USAGE = "/memory [show | set KEY VALUE | unset KEY]"


async def propose(
    root: Path, environ: Mapping[str, str] | None, ask: Ask, patch: object, source: str
) -> PatchReport:
    """Check ``patch``; when it changes anything, ask; write only on ``apply``."""
    memory = await asyncio.to_thread(load_memory, root, environ)
    check = check_patch(patch, memory)
    if not check.changes:
        return PatchReport(source, check)
    shown = tuple((c.key, shown_value(c.old), shown_value(c.new)) for c in check.changes)
    notes = tuple(f"{key}: not a memory key" for key in check.dropped) + tuple(
        f"{key}: {problem}" for key, problem in check.invalid
    )
    where = (
        f"user.* values go to {memory.user.label}; project.* values to {PROJECT_FILE} "
        "(shared through the repository)."
    )
    answer = await ask(ApplyMemory.of(source, shown, notes, where))
    if answer.choice != "apply":
        return PatchReport(source, check, declined=True)
    return await _write(root, environ, source, check)


async def _write(
    root: Path, environ: Mapping[str, str] | None, source: str, check: PatchCheck
) -> PatchReport:
    try:
        await asyncio.to_thread(apply_changes, root, check.changes, environ)
    except MemoryFileError as error:
        return PatchReport(source, check, error=str(error))
    return PatchReport(source, check, applied=True)


async def set_value(
    root: Path, environ: Mapping[str, str] | None, key: str, text: str | None
) -> PatchReport:
    """The user's own change (``/memory set`` / ``unset``): checked, written, not asked."""
    spec = spec_for(key)
    if spec is None:
        return PatchReport("user", PatchCheck(dropped=(key,)))
    value: object = None
    if text is not None:
        try:
            parsed = parse_text(spec, text)
        except InvalidValue as problem:
            return PatchReport("user", PatchCheck(invalid=((spec.key, str(problem)),)))
        value = to_json(parsed)
    memory = await asyncio.to_thread(load_memory, root, environ)
    check = check_patch({spec.key: value}, memory)
    if not check.changes:
        return PatchReport("user", check)
    return await _write(root, environ, "user", check)


# --- /memory ----------------------------------------------------------------------------------


def memory_reply(memory: EngineeringMemory) -> Reply:
    """Every key with its value and where it comes from; the files' problems below."""
    sources = {entry.key: entry for entry in memory.entries()}
    rows: list[tuple[str, ...]] = []
    for spec in KEYS:
        entry = sources.get(spec.key)
        if entry is None:
            rows.append((spec.key, "—", "not set", spec.help))
        else:
            rows.append((spec.key, shown_value(entry.value), entry.source, spec.help))
    lines = [
        f"user file: {memory.user.label} · project file: {PROJECT_FILE} (shared through the "
        "repository)",
        "change: /memory set KEY VALUE · /memory unset KEY (in a shell: ipuaro memory set|unset)",
    ]
    kind: str = "info"
    if memory.problems:
        kind = "warning"
        lines.append("problems (these values are not used until fixed):")
        lines += [f"  {problem}" for problem in memory.problems]
    table = ReplyTable("Engineering memory", tuple(rows), ("key", "value", "from", "meaning"))
    return Reply("\n".join(lines), kind, (table,))  # type: ignore[arg-type]


def _report_reply(report: PatchReport) -> Reply:
    if report.applied:
        return Reply(report.message, "success")
    if report.check.dropped:
        key = report.check.dropped[0]
        return Reply(f"unknown memory key {key!r}; the keys are: {key_list()}", "error")
    kind = "error" if report.error or report.check.invalid else "info"
    return Reply(report.message, kind)  # type: ignore[arg-type]


async def memory_command(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    """``/memory``: show, ``set KEY VALUE`` (words after KEY are one value), ``unset KEY``."""
    action = args[0] if args else "show"
    if action == "show":
        if len(args) > 1:
            return Reply(f"usage: {USAGE}", "error")
        return memory_reply(await asyncio.to_thread(workspace.engineering_memory))
    if action == "unset":
        if len(args) != 2:
            return Reply("usage: /memory unset KEY", "error")
        return _report_reply(await workspace.unset_memory(args[1]))
    if len(args) < 3:
        return Reply('usage: /memory set KEY VALUE (e.g. "pytest -q", quoted)', "error")
    key, words = args[1], args[2:]
    spec = spec_for(key)
    joiner = ", " if spec is not None and spec.kind == "folders" else " "
    return _report_reply(await workspace.set_memory(key, joiner.join(words)))


# --- without a workspace (`ipuaro memory`: no model server needed) ---------------------------


def show_memory(root: Path, environ: Mapping[str, str] | None = None) -> Reply:
    return memory_reply(load_memory(root, environ))


def memory_document(root: Path, environ: Mapping[str, str] | None = None) -> dict[str, object]:
    """The memory in effect as JSON (``{"user": …, "project": …, "problems": […]}``)."""
    memory = load_memory(root, environ)
    return {
        "user": memory.as_json().get("user", {}),
        "project": memory.as_json().get("project", {}),
        "files": {"user": memory.user.label, "project": PROJECT_FILE},
        "problems": list(memory.problems),
    }


def report_reply(report: PatchReport) -> Reply:
    """How a ``set`` / ``unset`` reads to the user."""
    return _report_reply(report)
