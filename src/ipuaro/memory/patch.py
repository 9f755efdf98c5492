"""A ``memory_patch`` checked against the whitelist and the memory in effect, then applied.

A patch is an object of dotted keys and values, ``null`` to forget a key::

    {"project.default_test_command": "pytest -q", "user.ask_budget": 1, "project.ci_notes": null}

(the nested form ``{"project": {"default_test_command": …}}`` small models write is read too).
:func:`check_patch` sorts every key into exactly one bucket: a change (old → new), unchanged
(already so), dropped (not on the whitelist), or invalid (the value's type is wrong; the message
says what the key expects). It never raises and never writes; :func:`apply_changes` writes the
changes, and only after the user confirmed them (the core asks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ipuaro.memory.book import EngineeringMemory, load_memory
from ipuaro.memory.files import MemoryFileError, write_layer
from ipuaro.memory.keys import InvalidValue, MemoryValue, Scope, check_value, key_list, spec_for

MAX_PATCH_KEYS = 64
"""A patch with more keys than this is refused whole (no model needs that many)."""


@dataclass(frozen=True)
class Change:
    key: str
    old: MemoryValue | None
    new: MemoryValue | None
    """None: forget the key."""

    @property
    def scope(self) -> Scope:
        return "user" if self.key.startswith("user.") else "project"


@dataclass(frozen=True)
class PatchCheck:
    changes: tuple[Change, ...] = ()
    unchanged: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    """Keys not on the whitelist (shown as written, cut to 80 characters)."""
    invalid: tuple[tuple[str, str], ...] = ()
    """(key, what is wrong and what it expects)."""

    def lines(self) -> list[str]:
        """What the check found, one line each, for the user and the model."""
        out = [f"{c.key}: {shown_value(c.old)} → {shown_value(c.new)}" for c in self.changes]
        out += [f"{key}: already remembered, unchanged" for key in self.unchanged]
        out += [f"{key}: dropped (not a memory key)" for key in self.dropped]
        out += [f"{key}: refused — {problem}" for key, problem in self.invalid]
        if self.dropped:
            out.append(f"the memory keys are: {key_list()}")
        return out


def shown_value(value: MemoryValue | None) -> str:
    if value is None:
        return "(not set)"
    if isinstance(value, tuple):
        return "[" + ", ".join(value) + "]"
    return repr(value) if isinstance(value, str) else str(value)


def _flatten(patch: Mapping[object, object]) -> list[tuple[object, object]]:
    """Dotted pairs; ``{"user": {"ask_budget": 1}}`` becomes ``("user.ask_budget", 1)``."""
    pairs: list[tuple[object, object]] = []
    for key, value in patch.items():
        scope = key.strip().lower() if isinstance(key, str) else ""
        if scope in ("user", "project") and isinstance(value, Mapping):
            pairs.extend((f"{scope}.{inner}", v) for inner, v in value.items())
            continue
        pairs.append((key, value))
    return pairs


def check_patch(patch: object, memory: EngineeringMemory) -> PatchCheck:
    """Sort ``patch`` against the whitelist and ``memory``; never raises."""
    if patch is None:
        return PatchCheck()
    if not isinstance(patch, Mapping):
        return PatchCheck(
            invalid=(("memory_patch", "must be an object of memory keys and values"),)
        )
    pairs = _flatten(patch)
    if len(pairs) > MAX_PATCH_KEYS:
        problem = f"{len(pairs)} keys is more than {MAX_PATCH_KEYS}; send only what changes"
        return PatchCheck(invalid=(("memory_patch", problem),))
    changes: dict[str, Change] = {}
    unchanged: list[str] = []
    dropped: list[str] = []
    invalid: list[tuple[str, str]] = []
    for raw_key, raw_value in pairs:
        spec = spec_for(raw_key) if isinstance(raw_key, str) else None
        if spec is None:
            shown = raw_key if isinstance(raw_key, str) else repr(raw_key)
            dropped.append(shown[:80])
            continue
        new: MemoryValue | None = None
        if raw_value is not None:
            try:
                new = check_value(spec, raw_value)
            except InvalidValue as problem:
                invalid.append((spec.key, str(problem)))
                changes.pop(spec.key, None)
                continue
        old = memory.get(spec.key)
        changes.pop(spec.key, None)  # the last value given for a key counts
        if spec.key in unchanged:
            unchanged.remove(spec.key)
        if old == new:
            unchanged.append(spec.key)
        else:
            changes[spec.key] = Change(spec.key, old, new)
    return PatchCheck(tuple(changes.values()), tuple(unchanged), tuple(dropped), tuple(invalid))


def apply_changes(
    root: Path, changes: tuple[Change, ...], environ: Mapping[str, str] | None = None
) -> EngineeringMemory:
    """Write ``changes`` to their files (each file atomically) and return the memory now.
    Both files are checked readable first, so a broken one stops the whole patch before
    anything is written. Raises :class:`MemoryFileError` naming the file and the fix."""
    memory = load_memory(root, environ)
    by_scope: dict[Scope, dict[str, MemoryValue | None]] = {}
    for change in changes:
        by_scope.setdefault(change.scope, {})[change.key] = change.new
    for scope in by_scope:
        layer = memory.layer(scope)
        if not layer.readable:
            raise MemoryFileError(f"not changed: {layer.problems[0]}")
    for scope, updates in by_scope.items():
        write_layer(scope, memory.layer(scope).path, updates)
    return load_memory(root, environ)


@dataclass(frozen=True)
class PatchReport:
    """What became of one ``memory_patch``: the check, and whether it was written."""

    source: str
    check: PatchCheck
    applied: bool = False
    declined: bool = False
    """The user said no (or nobody could be asked)."""
    error: str | None = None
    """A file could not be written (it names the file and the fix)."""

    @property
    def headline(self) -> str:
        if self.applied:
            return f"remembered {_count(len(self.check.changes))}"
        if self.error:
            return f"not remembered: {self.error}"
        if self.declined:
            return "not remembered: the user declined"
        if self.check.invalid or self.check.dropped:
            return "not remembered: no valid memory key to change"
        return "nothing to remember: the memory already says so"

    @property
    def message(self) -> str:
        """The headline and one line per key (what the model reads, what the user sees)."""
        return "\n".join([self.headline, *self.check.lines()])


def _count(number: int) -> str:
    return "1 value" if number == 1 else f"{number} values"
