"""The plan checked against the index: what it may break, and names it invents.

For every file the plan updates or deletes, the old and the new text are parsed with the
index's own tree-sitter parsers and their functions, classes and methods compared. A symbol
that is gone (removed or renamed) or whose signature changed (parameters, return type, async,
static) is looked up in the project's reference index: its uses in OTHER files that the plan
does not touch are what may break —

    may break: `apply_discount` (removed from pricing.py) — 5 uses (3 calls) in 2 files not
    updated: cart.py:1, cart.py:5, checkout.py:1, checkout.py:4, checkout.py:9

Uses are counted where the name can mean that symbol: files that import the defining file
(the dependency graph), and for a method also files that name its class. A file the plan
updates but whose new text still uses a removed name is said too.

Code names the plan's text cites (``name`` in backticks, or ``name()``) that the index neither
defines nor uses anywhere, and that the plan's new files do not define, are flagged as unknown.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ipuaro.edits.impact import (
    MayBreak,
    Signature,
    changed_symbols,
    parse_ast,
    signatures,
    uses_of,
)

if TYPE_CHECKING:
    from ipuaro.domain.edits import FileChange
    from ipuaro.domain.plan import Plan
    from ipuaro.store.protocol import Store

_CITED = re.compile(r"`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\([^`]*\))?`")
_BARE_CALL = re.compile(r"(?<![\w.`/-])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(\)")
_COMMON = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"self", "this", "cls"}

__all__ = ["ImpactReport", "MayBreak", "Signature", "check_impact", "signatures"]


@dataclass
class ImpactReport:
    may_break: list[MayBreak] = field(default_factory=list)
    unknown_symbols: list[str] = field(default_factory=list)

    def risks(self) -> list[str]:
        """Lines for the plan's ``risks`` and the confirmation."""
        lines = [item.line() for item in self.may_break]
        lines += [
            f"unknown symbol: `{name}` is named by the plan but neither defined nor used "
            "anywhere in the index (nor defined by the plan)"
            for name in self.unknown_symbols
        ]
        return lines


def _names_in(path: str, text: str) -> set[str]:
    from ipuaro.index.parsers import language_for, parse_source

    if language_for(path) is None:
        return set()
    indexes = parse_source(path, text).indexes
    return {name for name, _positions in indexes.reference_groups()}


def check_impact(store: Store, changes: Sequence[FileChange], plan: Plan | None) -> ImpactReport:
    """What the changes may break in files they leave alone, and the plan's unknown names."""
    report = ImpactReport()
    touched = {change.path for change in changes}
    new_names: dict[str, set[str]] = {}
    defined_by_plan: set[str] = set()
    for change in changes:
        if change.new_text is None:
            continue
        new_ast = parse_ast(change.path, change.new_text)
        if new_ast is not None:
            defined_by_plan |= {name.split(".")[-1] for name in signatures(new_ast)}
            defined_by_plan |= {name for name in signatures(new_ast) if "." in name}
    for change in changes:
        if change.old_text is None:
            continue
        old_ast = parse_ast(change.path, change.old_text)
        if old_ast is None:
            continue
        new_ast = parse_ast(change.path, change.new_text)
        for name, kind in changed_symbols(old_ast, new_ast):
            item = uses_of(store, change.path, name, kind, touched)
            if kind == "removed":
                short = name.split(".")[-1]
                still = tuple(
                    other.path
                    for other in changes
                    if other.path != change.path
                    and other.new_text is not None
                    and short in _cached_names(new_names, other.path, other.new_text)
                )
                item = replace(item, still_used_in_plan=still)
            if item.uses or item.still_used_in_plan:
                report.may_break.append(item)
    if plan is not None:
        report.unknown_symbols = _unknown_names(store, plan, defined_by_plan, changes)
    return report


def _cached_names(cache: dict[str, set[str]], path: str, text: str) -> set[str]:
    if path not in cache:
        cache[path] = _names_in(path, text)
    return cache[path]


def _cited_names(texts: Iterable[str]) -> list[str]:
    names: dict[str, None] = {}
    for text in texts:
        found = [*_CITED.finditer(text), *_BARE_CALL.finditer(text)]
        for match in sorted(found, key=lambda m: m.start()):
            names.setdefault(match.group(1), None)
    return list(names)


def _unknown_names(
    store: Store, plan: Plan, defined_by_plan: set[str], changes: Sequence[FileChange]
) -> list[str]:
    texts = [plan.summary, *(f"{s.step}\n{s.details}" for s in plan.plan)]
    written = "\n".join(c.new_text for c in changes if c.new_text)
    unknown: list[str] = []
    for cited in _cited_names(texts):
        parts = [p for p in cited.split(".") if p not in ("self", "this", "cls")]
        if not parts:
            continue
        last = parts[-1]
        if last in _COMMON or cited in defined_by_plan or last in defined_by_plan:
            continue
        if "." in cited and _is_file_name(cited):
            continue
        if store.find_definitions(last) or store.find_references(last):
            continue
        if re.search(rf"(?<![\w$]){re.escape(last)}(?![\w$])", written):
            continue  # a name the plan's own new text introduces (a variable, a key)
        unknown.append(cited)
    return unknown


_FILE_SUFFIXES = frozenset(
    {"py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "json", "yaml", "yml", "md", "toml"}
    | {"txt", "cfg", "ini", "html", "css", "sh", "lock"}
)


def _is_file_name(word: str) -> bool:
    return word.rsplit(".", 1)[-1].lower() in _FILE_SUFFIXES
