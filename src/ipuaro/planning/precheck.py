"""Every check apply makes, run when the plan is read: a plan that cannot apply is repaired
before the user is asked "say ok to apply", never refused after.

Besides ``planning.apply.validate`` (paths, protected files, limits, the disk, the plan's reads)
and apply's ``ERR_EMPTY_PLAN`` (nothing to apply; a ``NO_CHANGES:`` summary or questions for the
user are answers, not empty plans — small models often send a summary and stop), two checks
exist only here, because only the model can fix them:

- ``ERR_CONTENT_FRAGMENT``: an ``UPDATE_FILE`` content holding elision markers
  (``# ... rest of the file unchanged ...`` in any comment style) is the changed part, not the
  file. It goes through the same marker merge as ``edit_file`` (``edits.markers``) and becomes
  the merged file only when that merge is exact; otherwise it is this error. A fragment is
  never written as the whole file.
- ``ERR_SYMBOLS_REMOVED``: the new content drops most of the file's functions and classes and
  the plan does not name them (in its summary or steps) as meant to go.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from ipuaro.domain.plan import Action, Plan, PlanRecord, ProposedChanges
from ipuaro.planning.actions import ActionError, PlanInvalid, describe
from ipuaro.planning.parse import ReadPlan
from ipuaro.security.policy.paths import PathPolicy

Reader = Callable[[str], str | None]

EMPTY_PLAN = (
    "ERR_EMPTY_PLAN: the plan has no actions and no patch; put the changes in "
    "proposed_changes.actions, or start the summary with 'NO_CHANGES:' when nothing needs to "
    "change"
)

MIN_SYMBOLS_FOR_LOSS = 3
"""A file with fewer functions and classes than this is small enough to be rewritten."""


@dataclasses.dataclass
class Checked:
    read: ReadPlan
    """The plan with every fragment merged into its whole file."""
    notes: list[str]


def precheck(
    read: ReadPlan, paths: PathPolicy, read_files: dict[str, str], file_text: Reader
) -> Checked:
    """``read`` as apply will see it, or :class:`PlanInvalid` with every ``ERR_…`` found.
    ``read_files``: what the model was shown (path → sha256); ``file_text``: a file's text now."""
    from ipuaro.planning.apply import validate
    from ipuaro.planning.patch import patch_actions

    plan = read.plan
    changes = plan.proposed_changes
    actions = list(changes.actions)
    if not actions and changes.patch and changes.patch.strip():
        actions = patch_actions(changes.patch, file_text)  # PlanInvalid: ERR_PATCH_*
    if not actions:
        if plan.no_changes or plan.questions:
            return Checked(read, [])  # nothing to do, or the user must answer first
        raise PlanInvalid([ActionError("ERR_EMPTY_PLAN", EMPTY_PLAN)])
    errors: list[ActionError] = []
    notes: list[str] = []
    merged: list[Action] = []
    for index, action in enumerate(actions, 1):
        action, problem = _merge_fragment(index, action, file_text, notes)
        merged.append(action)
        if problem is not None:
            errors.append(problem)
    record = PlanRecord(plan, "", "", dict(read_files))
    try:
        validate(merged, record, paths)
    except PlanInvalid as invalid:
        errors += invalid.errors
    fragments = {error.index for error in errors}
    errors += [e for e in _symbols_removed(plan, merged, file_text) if e.index not in fragments]
    if errors:
        errors.sort(key=lambda e: e.index or 0)
        raise PlanInvalid(errors)
    if not changes.actions or merged == list(changes.actions):
        return Checked(read, notes)  # a patch stays a patch: apply reads it the same way
    return Checked(_with_actions(read, merged), notes)


def _merge_fragment(
    index: int, action: Action, file_text: Reader, notes: list[str]
) -> tuple[Action, ActionError | None]:
    from ipuaro.edits.markers import MergeFailed, merge_markers

    if action.kind != "UPDATE_FILE" or action.content is None:
        return action, None
    current = file_text(action.path)
    if current is None:
        return action, None  # validate says why (missing, not UTF-8)
    own = set(current.splitlines())
    markers = [line for line in action.content.splitlines() if _is_elision(line, own)]
    if not markers:
        return action, None
    try:
        lines = merge_markers(current.splitlines(), action.content)
    except MergeFailed as failure:
        why = (
            f"the content is a fragment (it holds {markers[0].strip()!r}) and it does not merge "
            f"exactly into the file: {failure}; send the whole new file, or anchor each changed "
            "part with unchanged lines around it"
        )
        return action, ActionError(
            "ERR_CONTENT_FRAGMENT",
            f"ERR_CONTENT_FRAGMENT: {describe(index, action)}: {why}",
            index,
            action.path,
        )
    text = "\n".join(lines) + ("\n" if current.endswith(("\n", "\r")) else "")
    notes.append(f"{action.path}: the content held elision markers; merged into the file")
    return dataclasses.replace(action, content=text), None


def _is_elision(line: str, own: set[str]) -> bool:
    """A comment-style marker the file does not hold itself (a bare ``...`` is Python code)."""
    from ipuaro.edits.markers import is_marker

    stripped = line.strip()
    return line not in own and stripped not in ("...", "…") and is_marker(line)


def _symbols_removed(plan: Plan, actions: list[Action], file_text: Reader) -> list[ActionError]:
    from ipuaro.index.parsers import UnsupportedLanguageError, parse_source

    said = " ".join([plan.summary, *(f"{s.step} {s.details}" for s in plan.plan)])
    errors: list[ActionError] = []
    for index, action in enumerate(actions, 1):
        if action.kind != "UPDATE_FILE" or action.content is None:
            continue
        current = file_text(action.path)
        if current is None:
            continue
        try:
            before = _symbol_names(parse_source(action.path, current).ast)
            after = _symbol_names(parse_source(action.path, action.content).ast)
        except UnsupportedLanguageError:
            continue
        lost = [name for name in before if name not in after]
        unnamed = [name for name in lost if not re.search(rf"\b{re.escape(name)}\b", said)]
        if len(before) >= MIN_SYMBOLS_FOR_LOSS and len(lost) * 2 > len(before) and unnamed:
            shown = ", ".join(unnamed[:6]) + (" …" if len(unnamed) > 6 else "")
            errors.append(
                ActionError(
                    "ERR_SYMBOLS_REMOVED",
                    f"ERR_SYMBOLS_REMOVED: {describe(index, action)}: the new content drops "
                    f"{len(lost)} of the file's {len(before)} functions and classes ({shown}) "
                    "and the plan does not say they go; send the whole file with them, or "
                    "name each removal in a plan step",
                    index,
                    action.path,
                )
            )
    return errors


def _symbol_names(ast: Any) -> list[str]:
    names = [f.name for f in ast.functions] + [c.name for c in ast.classes]
    return list(dict.fromkeys(names))


def _with_actions(read: ReadPlan, actions: list[Action]) -> ReadPlan:
    plan = read.plan
    changes = ProposedChanges(
        actions=tuple(actions),
        patch=None,
        commands_to_run=plan.proposed_changes.commands_to_run,
    )
    document = dict(read.document)
    proposed = dict(document.get("proposed_changes") or {})
    proposed["actions"] = [
        {"kind": a.kind, "path": a.path, **({} if a.content is None else {"content": a.content})}
        for a in actions
    ]
    proposed.pop("patch", None)
    document["proposed_changes"] = proposed
    return dataclasses.replace(
        read, plan=dataclasses.replace(plan, proposed_changes=changes), document=document
    )
