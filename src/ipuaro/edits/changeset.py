"""A changeset: what one change does to the project, proposed by an edit tool or a plan and
committed through :meth:`ipuaro.edits.engine.EditEngine.commit` — the one write path.

A changeset names every file it writes (``old_text`` — what the file must still hold — to
``new_text``; None on either side: created or deleted), the folders it makes and removes, and
a description (the undo step's name). It is written all or nothing, as one undo step.

Two flags say how a plan's change differs from a tool's edit, and nothing else does:

- ``per_file``: the user may turn single files down while applying the rest (the TUI's
  ``1``…``9``); an edit's files go together.
- ``all_or_nothing``: a kill between the first and the last rename is *completed* at the next
  opening (every file new), not only recorded (``edits.undo.UndoManager.settle``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from ipuaro.domain.edits import ConfirmRequest, FileChange

APPLYING_KEY: Final = "applying"
"""The store key naming the session whose all-or-nothing change is being written: the next
opening completes a change a kill cut short (``edits.undo.finish_interrupted``)."""


@dataclass(frozen=True)
class Changeset:
    files: tuple[FileChange, ...]
    """Files created (``old_text`` None), updated, deleted (``new_text`` None), in order."""
    description: str
    """Names the undo step (``/undo`` says it) and heads the model's report."""
    dirs_created: tuple[str, ...] = ()
    """Folders made, shallowest first (the parents a new file needs too)."""
    dirs_removed: tuple[str, ...] = ()
    """Folders removed, deepest first (empty once the change's files are gone)."""
    dirs_asked: frozenset[str] = frozenset()
    """Folders made for their own sake (not only as a kept file's parent): they stay when the
    user turns files down."""
    per_file: bool = False
    all_or_nothing: bool = False
    title: str = ""
    """The confirmation's title; empty: "Edit a.py, b.py" / "Delete a.py"."""
    summary: str = ""
    """What the user reads above the diff; empty: the description."""

    @property
    def paths(self) -> list[str]:
        return [change.path for change in self.files]

    @property
    def empty(self) -> bool:
        """Writing it would leave the project as it is."""
        unchanged = all(change.old_text == change.new_text for change in self.files)
        return unchanged and not self.dirs_created and not self.dirs_removed

    def diff(self) -> str:
        from ipuaro.edits.diffs import unified_diff

        return "".join(unified_diff(c.path, c.old_text, c.new_text) for c in self.files)

    def folder_lines(self) -> list[str]:
        return [f"+ folder {d}/" for d in self.dirs_created] + [
            f"- folder {d}/" for d in self.dirs_removed
        ]

    def listing(self) -> str:
        """One line per file and folder, for the confirmation and the report."""
        lines = [f"+ folder {d}/" for d in self.dirs_created]
        for change in self.files:
            if change.old_text is None:
                lines.append(f"+ {change.path} (new)")
            elif change.new_text is None:
                lines.append(f"- {change.path} (deleted)")
            else:
                lines.append(f"~ {change.path}")
        lines += [f"- folder {d}/" for d in self.dirs_removed]
        return "\n".join(lines)

    def request(self) -> ConfirmRequest:
        """The one question put to the user about the whole change."""
        deleting = not self.per_file and all(c.new_text is None for c in self.files)
        deleting = deleting and not self.dirs_created
        names = ", ".join(self.paths)
        title = self.title or ("Delete " if deleting else "Edit ") + names
        return ConfirmRequest(
            kind="delete" if deleting else "edit",
            title=title,
            description=self.summary or self.description,
            diff=self.diff() + "".join(line + "\n" for line in self.folder_lines()),
            files=list(self.files),
            per_file=self.per_file,
        )

    def without(self, rejected: frozenset[str] | set[str]) -> Changeset:
        """The change less the files the user turned down (and the folders only they
        needed: a folder made as their parent, a folder removed that a kept file stays in)."""
        rejected = set(rejected) & set(self.paths)
        if not rejected:
            return self
        files = tuple(c for c in self.files if c.path not in rejected)
        kept = [c.path for c in files if c.new_text is not None]
        created = tuple(
            d
            for d in self.dirs_created
            if d in self.dirs_asked
            or any(p.startswith(d + "/") for p in kept)
            or any(a.startswith(d + "/") for a in self.dirs_asked)
        )
        refused_deletes = {c.path for c in self.files if c.new_text is None} & rejected
        removed = tuple(
            d for d in self.dirs_removed if not any(p.startswith(d + "/") for p in refused_deletes)
        )
        return dataclasses.replace(self, files=files, dirs_created=created, dirs_removed=removed)

    def with_text(self, edited: Mapping[str, str]) -> Changeset:
        """The change with the new text the user typed for some files (a file the change
        deletes stays deleted)."""
        files = tuple(
            dataclasses.replace(c, new_text=edited[c.path])
            if c.path in edited and c.new_text is not None
            else c
            for c in self.files
        )
        return dataclasses.replace(self, files=files)
