"""Project-level analysis: import classification, the dependency graph, metas, call resolution.

Everything here is pure (no store, no disk) so the full and the incremental index share it.

Complexity score (``ComplexityScore.score``)::

    score = loc / 50 + 2 * nesting + imports / 5        (rounded to one decimal)

50 non-blank lines, half a nesting level and 5 imports weigh the same (one point): long files,
deeply nested code and files wired to many others all cost a reader attention, and nesting most.

Hub rule (``FileMeta.isHub``): more than 5 dependents, or at least 2 dependents and in the top
1 % of files by dependents (so small projects still have hubs). Entry points
(``FileMeta.isEntryPoint``): code files named like an entry (``index``, ``main``, ``cli``,
``__main__``, ``manage``, ``app``, ``server``, ``wsgi``, ``asgi``, ``setup``) or with no
dependents at all — never a declaration file (``.d.ts``, ``.pyi``): it declares, nothing runs it.
"""

from __future__ import annotations

import math
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ipuaro.domain import ComplexityScore, FileAST, FileMeta, ImportInfo
from ipuaro.index.resolve.resolver import ProjectLayout
from ipuaro.index.resolve.resolver_langs import RESOLVED_TAGS_LANGUAGES

CODE_LANGUAGES = frozenset({"typescript", "tsx", "javascript", "jsx", "python"})
RESOLVED_LANGUAGES = CODE_LANGUAGES | RESOLVED_TAGS_LANGUAGES
"""Languages whose import specifiers ProjectLayout resolves to files."""
ENTRY_STEMS = frozenset(
    {"index", "main", "cli", "__main__", "manage", "app", "server", "wsgi", "asgi", "setup"}
)
DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts", ".pyi")
HUB_MIN_DEPENDENTS = 5
HUB_TOP_FRACTION = 0.01


# --- imports ------------------------------------------------------------------------------
def resolve_imports(layout: ProjectLayout, path: str, ast: FileAST) -> list[ImportInfo]:
    """The file's imports with ``type`` re-classified, ``resolved`` and ``unresolved`` filled.

    Builtins stay builtins; anything that resolves into the project (relative, alias,
    workspace package, project python package) becomes ``internal``."""
    result: list[ImportInfo] = []
    language = ast.language
    if language not in RESOLVED_LANGUAGES:
        return list(ast.imports)  # no resolver: the parser's query said what is internal
    for info in ast.imports:
        if info.type == "builtin" and (language == "python" or info.from_.startswith("node:")):
            result.append(info)
            continue
        # JS "builtins" are tried too: with baseUrl "src", 'util/x' may be the project's file.
        # The submodule probed for `from . import x as y` is `x`, not the local alias `y`.
        imported = info.imported if info.imported is not None else info.name
        resolution = layout.resolve(path, info.from_, language, imported)
        if resolution.path is None and language in RESOLVED_TAGS_LANGUAGES:
            # no file: the query's own classification stands (`#include "x.h"` is internal)
            kind, resolved, unresolved = info.type, None, info.type == "internal"
        elif resolution.path is not None:
            kind, resolved, unresolved = "internal", resolution.path, False
        elif info.type == "builtin":
            result.append(info)
            continue
        elif resolution.internal:
            kind, resolved, unresolved = "internal", None, True
        else:
            kind, resolved, unresolved = "external", None, False
        if (info.type, info.resolved, info.unresolved) == (kind, resolved, unresolved):
            result.append(info)
        else:
            update = {"type": kind, "resolved": resolved, "unresolved": unresolved}
            result.append(info.model_copy(update=update))
    return result


def dependencies(imports: Iterable[ImportInfo], path: str) -> set[str]:
    return {i.resolved for i in imports if i.resolved is not None and i.resolved != path}


def has_unresolved(imports: Iterable[ImportInfo]) -> bool:
    return any(i.unresolved for i in imports)


def unresolved_specifiers(imports: Iterable[ImportInfo]) -> list[str]:
    return sorted({i.from_ for i in imports if i.unresolved})


# --- dependency graph ---------------------------------------------------------------------
@dataclass
class DependencyGraph:
    """File → files it imports, and the reverse."""

    deps: dict[str, set[str]] = field(default_factory=dict)
    dependents: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Iterable[str]]) -> DependencyGraph:
        graph = cls()
        for path, targets in mapping.items():
            graph.set_deps(path, set(targets))
        return graph

    def to_mapping(self) -> dict[str, list[str]]:
        return {path: sorted(targets) for path, targets in sorted(self.deps.items()) if targets}

    def set_deps(self, path: str, targets: set[str]) -> set[str]:
        """Replace ``path``'s dependencies; returns every file whose dependents changed."""
        old = self.deps.get(path, set())
        if old == targets:
            return set()
        for target in old - targets:
            bucket = self.dependents.get(target)
            if bucket is not None:
                bucket.discard(path)
                if not bucket:
                    del self.dependents[target]
        for target in targets - old:
            self.dependents.setdefault(target, set()).add(path)
        if targets:
            self.deps[path] = set(targets)
        else:
            self.deps.pop(path, None)
        return old ^ targets

    def remove(self, path: str) -> set[str]:
        """Drop ``path`` as a source; returns files whose dependents changed. Edges *into*
        ``path`` stay until their sources are re-resolved (see ``dependents_of``)."""
        return self.set_deps(path, set())

    def dependencies_of(self, path: str) -> list[str]:
        return sorted(self.deps.get(path, ()))

    def dependents_of(self, path: str) -> list[str]:
        return sorted(self.dependents.get(path, ()))

    def dependents_count(self, path: str) -> int:
        return len(self.dependents.get(path, ()))


def hub_threshold(dependents_counts: Iterable[int], total_files: int) -> int:
    """Smallest dependents count that is in the top :data:`HUB_TOP_FRACTION` of files."""
    counts = sorted((c for c in dependents_counts if c > 0), reverse=True)
    if not counts:
        return 1 << 30
    rank = max(1, math.ceil(total_files * HUB_TOP_FRACTION))
    return counts[min(rank, len(counts)) - 1]


def is_hub(dependents: int, threshold: int) -> bool:
    return dependents > HUB_MIN_DEPENDENTS or (dependents >= 2 and dependents >= threshold)


def is_declaration(path: str) -> bool:
    return path.lower().endswith(DECLARATION_SUFFIXES)


def is_entry_name(path: str) -> bool:
    name = posixpath.basename(path)
    stem = name.split(".", 1)[0]
    return stem in ENTRY_STEMS


# --- metas --------------------------------------------------------------------------------
def complexity(loc: int, nesting: int, imports: int) -> ComplexityScore:
    score = round(loc / 50 + 2 * nesting + imports / 5, 1)
    return ComplexityScore(loc=loc, nesting=nesting, imports=imports, score=score)


def build_meta(
    path: str,
    file_type: str,
    score: ComplexityScore,
    graph: DependencyGraph,
    threshold: int,
) -> FileMeta:
    dependents = graph.dependents_of(path)
    code = file_type in CODE_LANGUAGES and not is_declaration(path)
    return FileMeta(
        complexity=score,
        dependencies=graph.dependencies_of(path),
        dependents=dependents,
        is_hub=is_hub(len(dependents), threshold),
        is_entry_point=code and (is_entry_name(path) or not dependents),
        file_type=file_type,
    )


def refresh_meta(
    path: str, meta: FileMeta, graph: DependencyGraph, threshold: int
) -> FileMeta | None:
    """``meta`` with graph-derived fields recomputed, or None when nothing changed."""
    fresh = build_meta(path, meta.file_type, meta.complexity, graph, threshold)
    return None if fresh == meta else fresh
