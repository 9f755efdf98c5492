"""Whether a member access on an object of a known class means the member asked for.

The store's side of the reference judge (``references``): ``Ancestry`` walks a class's bases
through the index (and, for languages whose index rows do not record bases, through the
file's tree) to say whether the class is, or inherits from, one declaring the member:
``exact``, ``drop`` (every ancestor is indexed and none declares it) or ``name-only``
(something on the way is unknown). What class an object *is* is ``receivers``' question.
"""

from __future__ import annotations

from typing import Final, Literal

from ipuaro.index.refs.builtin_types import builtin_members
from ipuaro.index.refs.tags_bases import RECORDS_BASES, tree_bases
from ipuaro.store.protocol import Store

Verdict = Literal["exact", "name-only", "drop"]

_TYPE_KINDS: Final = frozenset({"class", "interface", "type"})
_MAX_DEPTH: Final = 6
_NEAR_HOPS: Final = 2


class Ancestry:
    """Whether a class (by name) is, or inherits from, a class declaring the member asked for.
    Shared by every file of one ``judge_references`` call (its answers are cached)."""

    def __init__(self, store: Store, containers: set[str], member: str = "") -> None:
        self.store = store
        self.containers = containers
        self.member = member
        """The member's name: a standard-library class that declares it (``dict.get``) owns
        the access in Python."""
        self._verdicts: dict[tuple[str, bool], Verdict] = {}
        self._kind_cache: dict[str, set[str]] = {}
        self._above: set[str] | None = None
        self._near: set[str] | None = None

    def is_class(self, name: str) -> bool:
        return "class" in self._kinds(name)

    def shapes(self) -> bool:
        """Whether an interface or type alias the index holds declares the member or is
        implemented by a declaring class: then an object literal may be one."""
        names = self.containers | self.above_containers()
        return any(self._kinds(name) & {"interface", "type"} for name in names) or not all(
            "class" in self._kinds(name) for name in self.containers
        )

    def only_classes(self) -> bool:
        """Whether every declaring container is a class (not a namespace or an interface)."""
        return all("class" in self._kinds(name) for name in self.containers)

    def near_containers(self) -> set[str]:
        """Files that declare the member, import such a file, or import one that does: where
        an object of a declaring class can come from without the file naming its class."""
        if self._near is None:
            near = {
                d.path
                for name in self.containers
                for d in self.store.find_definitions(name)
                if d.kind == "class"
            }
            frontier = set(near)
            for _ in range(_NEAR_HOPS):
                metas = self.store.get_metas(sorted(frontier))
                frontier = {p for meta in metas.values() for p in meta.dependents} - near
                near |= frontier
            self._near = near
        return self._near

    def above_containers(self) -> set[str]:
        """Every class or interface a declaring class extends or implements (its members'
        declarations there are the same member to the language)."""
        if self._above is None:
            above: set[str] = set()
            frontier = list(self.containers)
            for _ in range(_MAX_DEPTH):
                following = []
                for name in frontier:
                    for base in self._bases(name) or ():
                        if base not in above:
                            above.add(base)
                            following.append(base)
                frontier = following
            self._above = above
        return self._above

    def verdict(self, type_name: str, python: bool = False) -> Verdict:
        """``python``: a built-in or standard-library class on the way up is known by its
        members (``dict``, ``MutableMapping``), not an unknown library's class."""
        cached = self._verdicts.get((type_name, python))
        if cached is None:
            cached = self._verdicts[type_name, python] = self._walk(type_name, python)
        return cached

    def _walk(self, type_name: str, python: bool) -> Verdict:
        seen: set[str] = set()
        frontier = [type_name]
        for _ in range(_MAX_DEPTH):
            if any(name in self.containers for name in frontier):
                return "exact"
            following: list[str] = []
            for name in frontier:
                if name in seen:
                    continue
                seen.add(name)
                kinds = self._kinds(name)
                if not kinds & _TYPE_KINDS:
                    members = builtin_members(name) if python else None
                    if members is None:
                        return "name-only"  # a type the index cannot see (a library's, a `T`)
                    if self.member in members:
                        # `dict.get`: the standard library's member, unless a declaring class
                        # overrides such a member (`class LookupDict(dict)`): then the library's
                        # uses are its uses too, as the language servers and jedi count them
                        return "name-only" if self._overrides_library() else "drop"
                    continue  # declares no such member; its own bases are the library's too
                if "class" not in kinds:
                    # an interface or type alias: its own members are not indexed symbols, so
                    # the access means the symbol only through a class implementing it
                    if name in self.above_containers():
                        return "exact"
                    continue
                bases = self._bases(name)
                if bases is None:
                    return "name-only"
                following += bases
            if not following:
                return "drop"  # every ancestor is indexed and none declares the member
            frontier = following
        return "name-only"

    def _overrides_library(self) -> bool:
        return any(self.member in (builtin_members(name) or ()) for name in self.above_containers())

    def _kinds(self, name: str) -> set[str]:
        known = self._kind_cache.get(name)
        if known is None:
            known = self._kind_cache[name] = {d.kind for d in self.store.find_definitions(name)}
        return known

    def _bases(self, name: str) -> list[str] | None:
        """Direct bases of the class ``name``; None when it is not a class the index holds
        with its bases known (an interface's are not recorded)."""
        definitions = [d for d in self.store.find_definitions(name) if d.kind == "class"]
        if not definitions:
            return None
        bases: list[str] = []
        asts = self.store.get_asts(sorted({d.path for d in definitions}))
        for definition in definitions:
            ast = asts.get(definition.path)
            if ast is None:
                return None
            if ast.language not in RECORDS_BASES:
                from_tree = self._tree_bases(ast.language or "", definition.path, definition.line)
                if from_tree is None:
                    return None  # Go, Rust…: what the type inherits is not known
                bases += (bare for parent in from_tree if (bare := bare_type(parent)))
                continue
            found = [c for c in ast.classes if c.name == name and c.line_start == definition.line]
            if not found:
                return None
            for cls in found:
                parents = ([cls.extends] if cls.extends else []) + list(cls.implements)
                bases += (bare for parent in parents if (bare := bare_type(parent)))
        return bases

    def _tree_bases(self, language: str, path: str, line: int) -> list[str] | None:
        data = self.store.get_files([path]).get(path)
        return tree_bases(language, path, "\n".join(data.lines), line) if data else None


def bare_type(text: str) -> str:
    """``Base<T>`` -> ``Base``, ``ns.Base`` -> ``Base``, ``Generic[T]`` -> ``Generic``."""
    cut = min((i for i in (text.find("<"), text.find("["), text.find("(")) if i >= 0), default=-1)
    head = text[:cut] if cut >= 0 else text
    return head.strip().rsplit(".", 1)[-1]
