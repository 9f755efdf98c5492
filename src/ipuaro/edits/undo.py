"""Undo and redo of applied changes, persisted in the store so they survive a restart.

Entries are pushed by the edit engine (one per file; the files of one change share a
``group``). Undo takes the newest entry and every entry of its group, checks that each file
still holds what the change wrote (refusing, unless forced, when someone edited it since),
writes the previous contents back as one transaction and moves the entries to the redo stack.
Redo is the mirror image. Contents are stored as lines *with* their terminators, so the bytes
come back exactly (CRLF, a missing final newline).

The store trims a stack entry by entry (``undo.stackSize``), so the oldest group can lose some
of its files. Entries carry ``group_size``: a group found incomplete is refused (reverting part
of a change would leave the project in a state that never existed) and dropped from the stack.
Trimming whole groups when pushing was the alternative; checking here also covers entries that
reach the store by other paths (session import, the redo stack) and costs no extra read per
edit.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ipuaro.domain.tempfiles import process_alive
from ipuaro.edits.atomic import make_dirs_beneath, remove_dir_beneath
from ipuaro.edits.transaction import FileWrite, TransactionFailed, read_current, write_all

if TYPE_CHECKING:
    from ipuaro.domain import UndoEntry
    from ipuaro.domain.edits import Reindex
    from ipuaro.store.protocol import Store, UndoStackName


@dataclass
class UndoOutcome:
    done: bool
    message: str
    paths: list[str] = field(default_factory=list)
    description: str = ""
    changed_since: list[str] = field(default_factory=list)
    """Files edited after the change (the reason an unforced undo refused)."""


def _text(lines: list[str] | None) -> str | None:
    return None if lines is None else "".join(lines)


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")


def _read(path: Path) -> bytes | None:
    """The file's bytes; None when absent (a folder where a file was is not its content)."""
    try:
        return read_current(path)
    except IsADirectoryError:
        return b"\0<a folder>"


def put_states(root: Path, states: list[tuple[UndoEntry, list[str] | None]]) -> None:
    """Give each entry's path the content (or, for a folder, the presence) in ``states``:
    folders that must exist first (shallowest first), then the files as one transaction,
    then folders that must go (deepest first; one that is not empty stays)."""
    make = sorted(
        (e.file_path for e, content in states if e.is_dir and content is not None),
        key=lambda p: p.count("/"),
    )
    remove = sorted(
        (e.file_path for e, content in states if e.is_dir and content is None),
        key=lambda p: -p.count("/"),
    )
    made: list[str] = []
    try:
        for rel in make:
            made += make_dirs_beneath(root, rel)
        write_all(
            [
                FileWrite(e.file_path, root / e.file_path, _text(content))
                for e, content in states
                if not e.is_dir
            ]
        )
    except (OSError, TransactionFailed):
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                remove_dir_beneath(root, folder)
        raise
    for rel in remove:
        # A folder someone put files into since stays, with them: nobody's file is removed.
        with contextlib.suppress(OSError):
            remove_dir_beneath(root, rel)


class UndoManager:
    def __init__(
        self,
        store: Store,
        session_id: str,
        root: Path,
        reindex: Reindex,
        limit: int = 10,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.root = root
        self.reindex = reindex
        self.limit = limit

    def history(self, stack: UndoStackName = "undo") -> list[UndoEntry]:
        self.settle()
        return self.store.list_undo(self.session_id, stack)

    def settle(self) -> list[str]:
        """Resolve pending entries whose writer died between pushing them and confirming the
        write (a kill mid-edit). A change none of whose files holds anything but its previous
        content never happened: its entries are dropped. A change that reached the disk, even
        in part, is confirmed: undo puts back what was written (files already holding their
        previous content are left alone) — and an ``all_or_nothing`` change (a plan) is first
        completed, so every file holds its new content. Returns one notice per dropped or
        completed change."""
        entries = self.store.list_undo(self.session_id, "undo")
        orphaned = [e for e in entries if e.pending is not None and not process_alive(e.pending)]
        if not orphaned:
            return []
        changes: dict[str, list[UndoEntry]] = {}
        for entry in orphaned:
            changes.setdefault(entry.group or entry.id, []).append(entry)
        confirmed: list[str] = []
        dropped: list[str] = []
        notices: list[str] = []
        for members in changes.values():
            ids = [e.id for e in members]
            # Folders are made before any file is written: they alone are no progress.
            writes = [e for e in members if not e.is_dir] or members
            untouched = all(self._holds(e, e.previous_content) for e in writes)
            if untouched:
                with contextlib.suppress(OSError, TransactionFailed):
                    put_states(self.root, [(e, e.previous_content) for e in members if e.is_dir])
                dropped += ids
                files = ", ".join(e.file_path for e in members)
                notices.append(
                    f"dropped the undo entry of '{members[0].description}': the edit was "
                    f"interrupted before it changed {files}"
                )
                continue
            confirmed += ids
            if any(e.all_or_nothing for e in members):
                notices.append(self._complete(members))
        self.store.settle_undo(self.session_id, confirmed, dropped)
        return notices

    def _holds(self, entry: UndoEntry, content: list[str] | None) -> bool:
        """Whether the disk holds ``content`` (one of the entry's two sides) at its path."""
        where = self.root / entry.file_path
        if entry.is_dir:
            return where.is_dir() == (content is not None)
        return _read(where) == _bytes(_text(content))

    def _complete(self, members: list[UndoEntry]) -> str:
        """Finish a change a kill cut short: every member gets its new content."""
        description = members[0].description
        missing = [e for e in members if not self._holds(e, e.new_content)]
        try:
            put_states(self.root, [(e, e.new_content) for e in missing])
        except (OSError, TransactionFailed) as error:
            return (
                f"could not complete the interrupted change '{description}' ({error}); "
                "undo restores the files it reached"
            )
        changed = [e.file_path for e in missing if not e.is_dir and e.new_content is not None]
        deleted = [e.file_path for e in missing if not e.is_dir and e.new_content is None]
        with contextlib.suppress(Exception):  # the files are right; the index catches up
            self.reindex(changed, deleted)
        return (
            f"completed the change '{description}' that was interrupted after it had "
            f"written part of its files: its {sum(not e.is_dir for e in members)} file(s) now "
            "hold their new content "
            "(undo reverts all of it)"
        )

    def undo(self, force: bool = False) -> UndoOutcome:
        return self._move("undo", force)

    def redo(self, force: bool = False) -> UndoOutcome:
        return self._move("redo", force)

    def _group(self, stack: UndoStackName) -> list[UndoEntry]:
        """The newest entry and the rest of its group (oldest first)."""
        self.settle()
        entries = self.store.list_undo(self.session_id, stack)
        if not entries:
            return []
        top = entries[-1]
        if top.group is None:
            return [top]
        group: list[UndoEntry] = []
        for entry in reversed(entries):
            if entry.group != top.group:
                break
            group.append(entry)
        return list(reversed(group))

    def _drop_partial(
        self, direction: Literal["undo", "redo"], group: list[UndoEntry], size: int
    ) -> UndoOutcome:
        """The stack was trimmed through the middle of this group: reverting the files still
        listed would leave the change half applied, so nothing is written. The remainder is
        dropped (it can never be completed) so the next undo reaches older entries."""
        for _ in group:
            self.store.pop_undo(self.session_id, direction)
        description = group[-1].description
        files = ", ".join(e.file_path for e in group)
        return UndoOutcome(
            False,
            f"cannot {direction} '{description}': this change touched {size} files but only "
            f"{len(group)} ({files}) are still in the {direction} history "
            f"(undo.stackSize={self.limit}); nothing was {direction}ne. Those entries were "
            f"dropped; the next {direction} reaches older changes",
            paths=[e.file_path for e in group],
            description=description,
        )

    def _move(self, direction: Literal["undo", "redo"], force: bool) -> UndoOutcome:
        target: UndoStackName = "redo" if direction == "undo" else "undo"
        group = self._group(direction)
        if not group:
            return UndoOutcome(False, f"nothing to {direction}")
        description = group[-1].description
        if any(e.pending is not None for e in group):
            return UndoOutcome(
                False,
                f"'{description}' is being written right now; {direction} it once it is done",
                paths=[e.file_path for e in group],
                description=description,
            )
        size = group[-1].group_size
        if size is not None and len(group) < size:
            return self._drop_partial(direction, group, size)

        # Undo expects the file as the change left it and restores the previous content; redo
        # the other way round. A file already holding what the undo would write is not in the
        # way (a change cut short by a kill before it reached that file).
        def sides(e: UndoEntry) -> tuple[list[str] | None, list[str] | None]:
            if direction == "undo":
                return e.new_content, e.previous_content
            return e.previous_content, e.new_content

        changed = [
            e.file_path
            for e in group
            if not (self._holds(e, sides(e)[0]) or self._holds(e, sides(e)[1]))
        ]
        wanted = {e.file_path: _text(sides(e)[1]) for e in group if not e.is_dir}
        if changed and not force:
            return UndoOutcome(
                False,
                f"cannot {direction} '{description}': "
                + ", ".join(changed)
                + " changed since; force it to overwrite those changes",
                paths=[e.file_path for e in group],
                description=description,
                changed_since=changed,
            )
        try:
            put_states(self.root, [(e, sides(e)[1]) for e in group])
        except (TransactionFailed, OSError) as error:
            return UndoOutcome(False, f"{direction} failed: {error}", list(wanted), description)
        for _ in group:
            self.store.pop_undo(self.session_id, direction)
        for entry in group:
            self.store.push_undo(self.session_id, entry, max(self.limit, len(group)), target)
        changed_paths = [p for p, text in wanted.items() if text is not None]
        deleted_paths = [p for p, text in wanted.items() if text is None]
        note = ""
        try:
            self.reindex(changed_paths, deleted_paths)
        except Exception as error:  # the files are restored; the index catches up later
            note = f" (re-indexing failed: {error})"
        files = ", ".join(e.file_path for e in group)
        past = "undone" if direction == "undo" else "redone"
        return UndoOutcome(
            True,
            f"{past}: {description} ({files}){note}",
            [e.file_path for e in group],
            description,
        )


def finish_interrupted(store: Store, root: Path, reindex: Reindex, limit: int) -> list[str]:
    """At opening: an all-or-nothing change (a plan's) a kill cut short — the store's
    ``applying`` key names its session — is completed (all files new) or, if it wrote nothing
    yet, dropped (all files old). Returns the notice of a completed change, for the start-up
    warnings."""
    from ipuaro.edits.changeset import APPLYING_KEY
    from ipuaro.store.protocol import StoreError

    try:
        marker = store.get_config(APPLYING_KEY)
        if not isinstance(marker, dict) or not isinstance(marker.get("session"), str):
            return []
        session = marker["session"]
        manager = UndoManager(store, session, root, reindex, limit)
        if any(e.pending is not None for e in store.list_undo(session)):
            notices = [n for n in manager.settle() if "complete" in n]
            if any(e.pending is not None for e in store.list_undo(session)):
                return notices  # its writer is still alive: another ipuaro is applying it
        else:
            notices = []
        store.set_config(APPLYING_KEY, None)
    except StoreError as error:
        return [f"could not check for an interrupted plan apply: {error}"]
    return notices
