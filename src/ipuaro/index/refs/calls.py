"""Which file defines the function a call reaches, as far as the import graph tells.

The parsers record a call by its last name (``a.b.fn()`` → ``fn``). A call is resolved to:

1. the calling file, when that file defines the name (function, class, method, constant);
2. for a name bound by an import (``import { fn }``, ``from m import fn``), the file that
   defines it, starting at the import's resolved file and following re-exports (named and
   ``export *`` / ``from m import *``) for up to :data:`REEXPORT_HOPS` files; a default
   import resolves to its module;
3. otherwise, when exactly one of the calling file's resolved imports defines the name at top
   level (``mod.fn()`` after ``import mod`` / ``import * as mod``), that file.

Anything else stays unresolved (``None``): builtins, methods on values, ambiguous names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ipuaro.domain import CallEdge, ImportInfo

REEXPORT_HOPS = 3


@dataclass(frozen=True, slots=True)
class ModuleLinks:
    """What a file's resolved imports bind, for call resolution and re-export following."""

    bound: Mapping[str, tuple[str, bool]] = field(default_factory=dict)
    """Local name → (resolved file, is a default import)."""
    star: tuple[str, ...] = ()
    """Files re-exported wholesale (``export * from``, ``from m import *``)."""
    targets: tuple[str, ...] = ()
    """Every distinct resolved import target, in source order."""


EMPTY_LINKS = ModuleLinks()


def module_links(imports: Iterable[ImportInfo]) -> ModuleLinks:
    bound: dict[str, tuple[str, bool]] = {}
    star: list[str] = []
    targets: dict[str, None] = {}
    for info in imports:
        target = info.resolved
        if target is None:
            continue
        targets[target] = None
        if info.name == "*":
            star.append(target)
        elif info.name:
            # ``import a.b`` binds ``a`` in Python; JS names are already local names.
            bound[info.name.split(".", 1)[0]] = (target, info.is_default)
    return ModuleLinks(bound, tuple(dict.fromkeys(star)), tuple(targets))


class CallResolver:
    """Rules 2 and 3 above over any source of facts: in-memory summaries for a full index,
    the store for files an incremental update did not re-parse."""

    def __init__(
        self, defines: Callable[[str, str], bool], links: Callable[[str], ModuleLinks]
    ) -> None:
        self._defines = defines
        self._links = links
        self._cache: dict[tuple[str, str], str | None] = {}

    def target(self, links: ModuleLinks, callee: str) -> str | None:
        bound = links.bound.get(callee)
        if bound is not None:
            module, is_default = bound
            found = self.definer(module, callee)
            return module if found is None and is_default else found
        found_in: set[str] = set()
        for module in links.targets:
            definer = self.definer(module, callee)
            if definer is not None:
                found_in.add(definer)
                if len(found_in) > 1:
                    return None
        return next(iter(found_in), None)

    def targets(self, links: ModuleLinks, callees: Iterable[str]) -> dict[str, str]:
        """Callee name → defining file, for the callees that resolve."""
        result: dict[str, str] = {}
        for callee in callees:
            found = self.target(links, callee)
            if found is not None:
                result[callee] = found
        return result

    def definer(self, module: str, name: str) -> str | None:
        key = (module, name)
        if key not in self._cache:
            self._cache[key] = self._follow(module, name, REEXPORT_HOPS, set())
        return self._cache[key]

    def _follow(self, module: str, name: str, hops: int, seen: set[str]) -> str | None:
        if self._defines(module, name):
            return module
        if hops == 0 or module in seen:
            return None
        seen.add(module)
        links = self._links(module)
        bound = links.bound.get(name)
        if bound is not None:
            found = self._follow(bound[0], name, hops - 1, seen)
            if found is not None:
                return found
        for star in links.star:
            found = self._follow(star, name, hops - 1, seen)
            if found is not None:
                return found
        return None


def set_resolved(edge: CallEdge, target: str | None) -> None:
    """Set ``edge.resolved`` in place. The parsers build edges without validation and share
    one frozenset as their "fields set", which pydantic's ``__setattr__`` cannot add to; the
    field is written directly (it is a plain ``str | None``, nothing to validate)."""
    edge.__dict__["resolved"] = target
