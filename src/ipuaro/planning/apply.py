"""A stored plan made into one changeset, written by the edit engine like every change.

:func:`prepare` checks everything before a byte is written (``planning.actions``; a ``patch``
through ``planning.patch``), orders the actions, turns them into per-file changes (each file
keeps its line endings) plus the folders created and removed, draws ONE multi-file diff and
checks the change against the index (``planning.impact``). :meth:`PreparedApply.changeset`
hands it to ``edits.engine.EditEngine.commit`` — the one write path: one confirmation (files
may be turned down one by one), the stale check, one undo step, one transaction, the re-index.

The changeset is ``all_or_nothing``: a kill between the first and the last rename leaves
pending entries whose writer is gone, and the next opening (the store's ``applying`` key names
the session) finds the files either all as they were (the entries are dropped) or some written,
and then writes the rest from the entries, so the files are all old or all new
(``edits.undo.UndoManager.settle``). One undo reverts the whole change: every file byte for
byte, created files and folders removed, removed ones back.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ipuaro.domain.edits import FileChange
from ipuaro.edits.changeset import Changeset
from ipuaro.planning.actions import (
    ActionError,
    PlanInvalid,
    Target,
    check_conflicts,
    check_content,
    check_disk,
    check_kind,
    check_limits,
    check_policy,
    check_spelling,
    normal_path,
    ordered,
)

if TYPE_CHECKING:
    from ipuaro.domain.plan import Action, PlanRecord
    from ipuaro.planning.impact import ImpactReport
    from ipuaro.security.policy.paths import PathPolicy
    from ipuaro.store.protocol import Store


@dataclass
class PreparedApply:
    """Everything the user is shown and what the edit engine writes (:meth:`changeset`)."""

    record: PlanRecord
    root: Path
    actions: list[Action]
    """In the order they run."""
    changes: list[FileChange]
    """Files created (``old_text`` None), updated, deleted (``new_text`` None)."""
    dirs_created: list[str] = field(default_factory=list)
    """Folders made, shallowest first (the parents a new file needs too)."""
    dirs_removed: list[str] = field(default_factory=list)
    """Folders removed, deepest first."""
    diff: str = ""
    impact: ImpactReport | None = None
    notes: list[str] = field(default_factory=list)
    """Said with the diff: a patch turned into actions, an action that changes nothing."""

    @property
    def paths(self) -> list[str]:
        return [c.path for c in self.changes]

    def risks(self) -> list[str]:
        found = self.impact.risks() if self.impact is not None else []
        return [*self.record.plan.risks, *found]

    def summary(self) -> str:
        """One line per file and folder, for the confirmation and the report."""
        return self.changeset("").listing()

    def changeset(self, description: str, *, title: str = "", summary: str = "") -> Changeset:
        """The change for the edit engine: files may be turned down one by one, and a kill
        midway is completed at the next opening (``all_or_nothing``)."""
        asked = {normal_path(a.path) for a in self.actions if a.kind == "CREATE_DIR"}
        return Changeset(
            tuple(self.changes),
            description,
            tuple(self.dirs_created),
            tuple(self.dirs_removed),
            frozenset(asked),
            per_file=True,
            all_or_nothing=True,
            title=title,
            summary=summary,
        )

    def written(self, changeset: Changeset, rejected: tuple[str, ...] = ()) -> PreparedApply:
        """What the engine wrote (or would have): the files and folders left after the user
        turned some down or edited their text."""
        notes = [*self.notes]
        if rejected:
            notes.append("rejected by the user: " + ", ".join(sorted(rejected)))
        return PreparedApply(
            self.record,
            self.root,
            self.actions,
            list(changeset.files),
            list(changeset.dirs_created),
            list(changeset.dirs_removed),
            changeset.diff(),
            self.impact,
            notes,
        )


def plan_actions(record: PlanRecord, root: Path) -> tuple[list[Action], list[str]]:
    """The plan's actions, or its ``patch`` turned into actions when it has none."""
    from ipuaro.planning.patch import patch_actions

    changes = record.plan.proposed_changes
    if changes.actions:
        notes = ["the plan has both actions and a patch; the actions are applied"]
        return list(changes.actions), notes if changes.patch else []
    if changes.patch and changes.patch.strip():
        actions = patch_actions(changes.patch, lambda path: _read_text(root, path))
        return actions, [f"the plan's patch was read as {len(actions)} file action(s)"]
    return [], []


def validate(
    actions: list[Action], record: PlanRecord, paths: PathPolicy
) -> tuple[list[Target], dict[str, str | None]]:
    """Every check on every action; raises :class:`PlanInvalid` listing all failures.
    Returns the targets and each file's current text (None: absent or not UTF-8)."""
    errors: list[ActionError] = check_limits(actions)
    targets: list[Target] = []
    for index, action in enumerate(actions, 1):
        problem = check_kind(index, action) or check_spelling(index, action)
        if problem is None:
            found = check_policy(index, action, paths)
            if isinstance(found, ActionError):
                problem = found
            else:
                targets.append(found)
        content_problem = check_content(index, action)
        errors += [p for p in (problem, content_problem) if p is not None]
    errors += check_conflicts(actions)
    current: dict[str, str | None] = {}
    for target in targets:
        text = _read_text(paths.root, target.rel) if target.abs.is_file() else None
        current[target.rel] = text
        problem = check_disk(target, actions, record.read_files, text, paths.root)
        if problem is None and target.action.kind == "DELETE_FILE" and text is None:
            problem = ActionError(
                "ERR_NOT_UTF8",
                f"ERR_NOT_UTF8: action {target.index} (DELETE_FILE {target.action.path}): "
                "the file is not UTF-8 text, so undo could not bring it back; delete it "
                "yourself if you mean to",
                target.index,
                target.action.path,
            )
        if problem is not None:
            errors.append(problem)
    if errors:
        errors.sort(key=lambda e: e.index or 0)
        raise PlanInvalid(errors)
    return targets, current


def prepare(record: PlanRecord, paths: PathPolicy, store: Store | None) -> PreparedApply:
    """Check the plan and build the change. Raises :class:`PlanInvalid` (nothing written);
    a plan with no actions and no patch is ``ERR_EMPTY_PLAN`` (callers say ``NO_CHANGES:``
    plans apart first: :attr:`Plan.no_changes`)."""
    from ipuaro.edits.diffs import unified_diff
    from ipuaro.edits.text import new_file_text
    from ipuaro.planning.impact import check_impact
    from ipuaro.security.policy.content import conform_to

    root = paths.root
    actions, notes = plan_actions(record, root)
    if not actions:
        raise PlanInvalid(
            [
                ActionError(
                    "ERR_EMPTY_PLAN",
                    "ERR_EMPTY_PLAN: the plan has no actions and no patch, and its summary does "
                    "not start with 'NO_CHANGES:'; ask for the change again",
                )
            ]
        )
    targets, current = validate(actions, record, paths)
    by_action = {id(t.action): t for t in targets}
    run_order = ordered(actions)
    changes: list[FileChange] = []
    created: list[str] = []
    removed: list[str] = []
    for action in run_order:
        target = by_action[id(action)]
        rel = target.rel
        if action.kind == "CREATE_DIR":
            _add_missing_dirs(root, rel, created, include_self=True)
        elif action.kind == "CREATE_FILE":
            _add_missing_dirs(root, str(PurePosixPath(rel).parent), created, include_self=True)
            changes.append(FileChange(rel, None, new_file_text(action.content or "")))
        elif action.kind == "UPDATE_FILE":
            old = current[rel]
            assert old is not None  # validate() refused anything else
            new = conform_to(action.content or "", old)
            if new == old:
                notes.append(f"{rel}: the new content equals the file; nothing to write")
                continue
            changes.append(FileChange(rel, old, new))
        elif action.kind == "DELETE_FILE":
            changes.append(FileChange(rel, current[rel], None))
        else:
            removed += [d for d in _folders_under(root, rel) if d not in removed]
    if not changes and not created and not removed:
        raise PlanInvalid(
            [
                ActionError(
                    "ERR_EMPTY_PLAN",
                    "ERR_EMPTY_PLAN: every action leaves the project as it is; nothing to apply",
                )
            ]
        )
    diff = "".join(unified_diff(c.path, c.old_text, c.new_text) for c in changes)
    prepared = PreparedApply(record, root, run_order, changes, created, removed, diff, None, notes)
    if store is not None:
        prepared.impact = check_impact(store, changes, record.plan)
    return prepared


def _read_text(root: Path, rel: str) -> str | None:
    try:
        return (root / rel).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _add_missing_dirs(root: Path, rel: str, created: list[str], *, include_self: bool) -> None:
    if rel in ("", "."):
        return
    chain = [*reversed(PurePosixPath(rel).parents), PurePosixPath(rel)]
    for folder in chain if include_self else chain[:-1]:
        name = folder.as_posix()
        if name in ("", ".") or name in created:
            continue
        if not (root / name).is_dir():
            created.append(name)


def _folders_under(root: Path, rel: str) -> list[str]:
    """``rel`` and every folder below it, deepest first (all empty once the plan ran)."""
    found = [rel]
    for dirpath, dirnames, _files in os.walk(root / rel):
        found += [Path(dirpath, d).relative_to(root).as_posix() for d in dirnames]
    return sorted(found, key=lambda d: -d.count("/"))


def preview(record: PlanRecord, paths: PathPolicy, store: Store | None) -> list[str]:
    """What applying would say about the plan now, to show with it before the user says ok:
    every failed check (``ERR_…`` lines), else the risks the index finds (may break, unknown
    names). Empty for a ``NO_CHANGES:`` plan. Never raises for a bad plan."""
    if record.plan.no_changes:
        return []
    try:
        prepared = prepare(record, paths, store)
    except PlanInvalid as invalid:
        return [error.message for error in invalid.errors]
    return prepared.impact.risks() if prepared.impact is not None else []
