"""What a change to a file may break in the files it leaves alone — one implementation for the
after-edit check (every applied edit) and plan mode's impact check.

The old and the new text's functions, classes and methods are compared. A symbol that is gone
(removed or renamed) or whose signature changed (parameters, return type, async, static) is
looked up in the project's reference index: its uses in OTHER files the change does not touch
are what may break —

    may break: `apply_discount` (removed from pricing.py) — 5 uses (3 calls) in 2 files not
    updated: cart.py:1, cart.py:5, checkout.py:1, checkout.py:4, checkout.py:9

Uses are counted where the name can mean that symbol: files that import the defining file
(the dependency graph), and for a method also files that name its class.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ipuaro.domain.files import FileAST
    from ipuaro.domain.indexes import Reference
    from ipuaro.store.protocol import Store

MAX_SHOWN_USES = 6


@dataclass(frozen=True)
class Signature:
    name: str
    """``f`` for a function or class, ``Class.method`` for a method."""
    kind: str
    shape: tuple[object, ...]
    """What a caller depends on: parameters, return type, async, static."""


@dataclass(frozen=True)
class MayBreak:
    symbol: str
    path: str
    change: str
    """``removed`` (gone or renamed) or ``changed`` (signature)."""
    uses: tuple[Reference, ...]
    call_sites: int
    still_used_in_plan: tuple[str, ...] = ()
    """Files the plan rewrites whose new text still uses the removed name."""

    def line(self) -> str:
        files = sorted({use.path for use in self.uses})
        what = "removed from" if self.change == "removed" else "signature changed in"
        uses = f"{len(self.uses)} use{'s' if len(self.uses) != 1 else ''}"
        if self.call_sites:
            uses += f" ({self.call_sites} call{'s' if self.call_sites != 1 else ''})"
        shown = ", ".join(f"{u.path}:{u.line}" for u in self.uses[:MAX_SHOWN_USES])
        more = (
            f" and {len(self.uses) - MAX_SHOWN_USES} more"
            if len(self.uses) > MAX_SHOWN_USES
            else ""
        )
        text = f"may break: `{self.symbol}` ({what} {self.path})"
        if self.uses:
            text += (
                f" — {uses} in {len(files)} file{'s' if len(files) != 1 else ''} not "
                f"updated: {shown}{more}"
            )
        if self.still_used_in_plan:
            text += ("; " if self.uses else " — ") + (
                "still used in the plan's new text of " + ", ".join(self.still_used_in_plan)
            )
        return text


def signatures(ast: FileAST) -> dict[str, Signature]:
    found: dict[str, Signature] = {}
    shape: tuple[object, ...]
    for function in ast.functions:
        shape = (tuple(function.params), function.return_type, function.is_async)
        found[function.name] = Signature(function.name, "function", shape)
    for klass in ast.classes:
        found[klass.name] = Signature(klass.name, "class", ())
        for method in klass.methods:
            if method.kind == "constructor":
                shape = (tuple(method.params),)
                found[f"{klass.name}.{method.name}"] = Signature(klass.name, "constructor", shape)
                continue
            shape = (tuple(method.params), method.return_type, method.is_async, method.is_static)
            qualified = f"{klass.name}.{method.name}"
            found[qualified] = Signature(qualified, "method", shape)
    return found


def parse_ast(path: str, text: str | None) -> FileAST | None:
    """The file's syntax summary, or None for no text or a language the index does not parse."""
    from ipuaro.index.parsers import language_for, parse_source

    if text is None or language_for(path) is None:
        return None
    return parse_source(path, text).ast


def changed_symbols(before: FileAST, after: FileAST | None) -> list[tuple[str, str]]:
    """``(name, "removed" | "changed")`` for each symbol of ``before`` a caller may trip on."""
    old = signatures(before)
    new = signatures(after) if after is not None else {}
    found: list[tuple[str, str]] = []
    for name, signature in old.items():
        if signature.kind == "constructor":
            continue
        now = new.get(name)
        if now is not None and now.shape == signature.shape:
            continue
        found.append((name, "removed" if now is None else "changed"))
    return found


def file_impact(
    store: Store, path: str, before: FileAST, after: FileAST | None, touched: Collection[str]
) -> list[MayBreak]:
    """Symbols of ``path`` the change removed or changed that files outside ``touched`` use."""
    found: list[MayBreak] = []
    naming: dict[str, set[str]] = {}
    for name, kind in changed_symbols(before, after):
        item = uses_of(store, path, name, kind, touched, naming)
        if item.uses:
            found.append(item)
    return found


def uses_of(
    store: Store,
    path: str,
    name: str,
    kind: str,
    touched: Collection[str],
    naming: dict[str, set[str]] | None = None,
) -> MayBreak:
    """References to ``name`` (defined in ``path``) from files that can mean it and that the
    change leaves alone. ``naming``: the files naming each class, kept across calls (one lookup
    for all the methods of a class)."""
    short = name.split(".")[-1]
    meta = store.get_meta(path)
    importers = set(meta.dependents) if meta is not None else set()
    if "." in name:
        owner = name.split(".")[0]
        naming = {} if naming is None else naming
        if owner not in naming:
            naming[owner] = {r.path for r in store.find_references(owner)}
        candidates = importers | naming[owner]
    else:
        candidates = importers
    candidates -= {*touched, path}
    uses = tuple(r for r in store.find_references(short) if r.path in candidates)
    calls = [c for c in store.find_calls(callee=short) if c.path in candidates]
    return MayBreak(name, path, kind, uses, len(calls))
