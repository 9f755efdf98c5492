"""What call resolution and re-resolution need to know about files, wherever it lives.

During a run, a file's definitions and import links come from its fresh parse summary, from
re-resolved imports, or (for files the run does not touch) from the store. A file that will be
parsed but is not yet raises :class:`Pending`: the caller waits for it and retries, so
resolution never answers from stale or missing facts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ipuaro.domain.errors import IpuaroError
from ipuaro.index.pipeline import analyzer
from ipuaro.index.pipeline.worker import FileSummary
from ipuaro.index.refs.calls import EMPTY_LINKS, CallResolver, ModuleLinks, module_links
from ipuaro.store.protocol import Store


class Pending(IpuaroError):
    """``module`` is still being parsed: ask again once its summary arrives."""

    def __init__(self, module: str) -> None:
        super().__init__(module)
        self.module = module


def language_of(path: str) -> str | None:
    from ipuaro.index.parsers import language_for

    return language_for(path)


class ProjectFacts:
    def __init__(
        self,
        store: Store,
        summaries: Mapping[str, FileSummary],
        pending: Collection[str],
        stored_before: Collection[str],
        deleted: Collection[str],
    ) -> None:
        self.store = store
        self.summaries = summaries
        self.pending = pending
        self.stored_before = stored_before
        self.deleted = deleted
        self.relinked: dict[str, ModuleLinks] = {}
        """Unchanged files whose imports were re-resolved in this run."""
        self._by_name: dict[str, set[str]] = {}
        self._stored_links: dict[str, ModuleLinks] = {}
        self.resolver = CallResolver(self.defines, self.links)

    def _from_store(self, path: str) -> bool:
        return (
            path not in self.deleted
            and path in self.stored_before
            and language_of(path) in analyzer.CODE_LANGUAGES
        )

    def defines(self, path: str, name: str) -> bool:
        if path in self.pending:
            raise Pending(path)
        summary = self.summaries.get(path)
        if summary is not None:
            return name in summary.defines
        if not self._from_store(path):
            return False
        paths = self._by_name.get(name)
        if paths is None:
            found = self.store.find_definitions(name)
            paths = self._by_name[name] = {d.path for d in found if d.container is None}
        return path in paths

    def links(self, path: str) -> ModuleLinks:
        if path in self.pending:
            raise Pending(path)
        summary = self.summaries.get(path)
        if summary is not None:
            return summary.links
        if path in self.relinked:
            return self.relinked[path]
        if not self._from_store(path):
            return EMPTY_LINKS
        if path not in self._stored_links:
            ast = self.store.get_ast(path)
            self._stored_links[path] = module_links(ast.imports) if ast else EMPTY_LINKS
        return self._stored_links[path]

    def targets(self, path: str) -> dict[str, str]:
        """Cross-file call targets of a parsed file (raises :class:`Pending`)."""
        summary = self.summaries[path]
        return self.resolver.targets(summary.links, summary.callees)
