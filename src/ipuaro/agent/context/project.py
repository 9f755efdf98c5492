"""The project part of the initial context: structure, AST summary, dependencies, metrics.

Everything comes from the store, never from the disk, and no code is included. When the full
summary exceeds the structure budget, files are ranked (see ``ranking``) and shown in three
tiers: a full block for the best, one line of names for the next, and the rest folded into
directory lines (``django/contrib/admin/  45 files``) — the model can always call
``get_structure`` for a folded folder.

Per-file renderings are cached by content hash, so re-rendering for a new request costs a
ranking pass, not a reload of every AST.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ipuaro.agent.context.ast_summary import FileSummary, file_heading, summarise_file
from ipuaro.agent.context.ranking import RankSignals, is_test, rank, static_score
from ipuaro.store.protocol import Store

Estimator = Callable[[str], int]

FULL_SHARE = 0.85
"""Share of the file budget full blocks may take, so brief lines still name the next files."""

FILES_TITLE = "## Files (AST summary: signatures with line spans, no code; loc = non-blank lines)"
MAX_FOLD_DEPTH = 4
METRIC_ITEMS = 8


@dataclass(frozen=True)
class SummaryStats:
    files_total: int
    files_full: int
    files_brief: int
    files_folded: int
    tokens: int
    budget: int

    @property
    def folded(self) -> bool:
        return self.files_folded > 0 or self.files_brief > 0


@dataclass
class _Cached:
    hash: str
    summary: FileSummary
    heading_tokens: int
    full_tokens: int
    brief_tokens: int
    static_score: float


def _dir(path: str) -> str:
    return posixpath.dirname(path)


class ProjectSummary:
    """Renders the project summary of one store within a token budget."""

    def __init__(self, store: Store, estimate: Estimator) -> None:
        self._store = store
        self._estimate = estimate
        self._cache: dict[str, _Cached] = {}
        self._everything: int | None = None
        self._document_frequency: Counter[str] | None = None
        """Tokens of every file in full (cached until the next change)."""

    @property
    def file_count(self) -> int:
        return len(self._cache)

    def document_frequency(self) -> Counter[str]:
        """In how many files each word occurs (path and symbol names), for rarity weights."""
        if self._document_frequency is None:
            counts: Counter[str] = Counter()
            for cached in self._cache.values():
                counts.update(cached.summary.words)
            self._document_frequency = counts
        return self._document_frequency

    def refresh(self) -> int:
        """Sync with the store; returns how many files were (re)loaded."""
        hashes = self._store.file_hashes()
        removed = [p for p in self._cache if p not in hashes]
        changed = [p for p, h in hashes.items() if p not in self._cache or self._cache[p].hash != h]
        for path in removed:
            del self._cache[path]
        if not changed and not removed:
            return 0
        self._everything = None
        self._document_frequency = None
        # A change elsewhere alters dependents and hub flags of unchanged files: compare metas.
        metas = self._store.get_metas()
        stale = set(changed)
        for path, cached in self._cache.items():
            meta = metas.get(path)
            if path in stale or meta is None:
                continue
            summary = cached.summary
            if (
                len(meta.dependents) != summary.dependents
                or meta.is_hub != summary.is_hub
                or meta.is_entry_point != summary.is_entry_point
            ):
                stale.add(path)
        asts = self._store.get_asts(stale)
        for path in stale:
            summary = summarise_file(path, asts.get(path), metas.get(path))
            self._cache[path] = self._make(path, hashes[path], summary)
        return len(changed)

    def _make(self, path: str, file_hash: str, summary: FileSummary) -> _Cached:
        return _Cached(
            hash=file_hash,
            summary=summary,
            heading_tokens=self._estimate(file_heading(summary)) + 1,
            full_tokens=self._estimate(summary.full) if summary.full else 0,
            brief_tokens=self._estimate(summary.brief) if summary.brief else 0,
            static_score=static_score(summary),
        )

    # --- rendering ------------------------------------------------------------------------

    def render(
        self, signals: RankSignals, budget: int, project_name: str
    ) -> tuple[str, SummaryStats]:
        summaries = {p: c.summary for p, c in self._cache.items()}
        header = self._header(project_name, summaries)
        metrics = self._metrics(summaries)
        fixed = self._estimate(header) + self._estimate(metrics) + 20
        available = max(0, budget - fixed)
        if self._everything is None:
            self._everything = sum(
                c.heading_tokens + c.full_tokens for c in self._cache.values()
            ) + self._dir_cost(set(self._cache))
        ranked: list[str] | None = None
        if self._everything <= available:
            tiers = {p: "full" for p in self._cache}
        else:
            ranked = self._rank(summaries, signals)
            tiers = self._choose(ranked, available)
        text = self._compose(header, metrics, tiers, summaries, budget)
        tokens = self._estimate(text)
        # The per-piece estimate can undercount the assembled text: demote the worst-ranked
        # files (full → brief → gone) by the estimated overshoot, then measure again.
        if tokens > budget and ranked is None:
            ranked = self._rank(summaries, signals)
        order = [p for p in ranked or () if p in tiers] if tokens > budget else []
        while tokens > budget and order:
            needed = (tokens - budget) * 1.1 + 5
            saved = 0
            while order and saved < needed:
                worst = order.pop()
                cached = self._cache[worst]
                if tiers[worst] == "full" and 0 < cached.brief_tokens < cached.full_tokens:
                    tiers[worst] = "brief"
                    saved += cached.full_tokens - cached.brief_tokens
                    order.insert(0, worst)  # may go entirely once every other file is brief
                else:
                    shown = cached.full_tokens if tiers[worst] == "full" else cached.brief_tokens
                    del tiers[worst]
                    saved += cached.heading_tokens + shown
            text = self._compose(header, metrics, tiers, summaries, budget)
            tokens = self._estimate(text)
        full = sum(1 for t in tiers.values() if t == "full")
        brief = sum(1 for t in tiers.values() if t == "brief")
        stats = SummaryStats(
            files_total=len(summaries),
            files_full=full,
            files_brief=brief,
            files_folded=len(summaries) - full - brief,
            tokens=tokens,
            budget=budget,
        )
        return text, stats

    def _rank(self, summaries: dict[str, FileSummary], signals: RankSignals) -> list[str]:
        return rank(summaries, signals, {p: c.static_score for p, c in self._cache.items()})

    def _dir_cost(self, paths: set[str]) -> int:
        return sum(self._estimate(d + "/") for d in {_dir(p) for p in paths} if d)

    def _choose(self, ordered: list[str], available: int) -> dict[str, str]:
        # Reserve room for folding everything at depth 1 (the cheapest fold).
        reserve = sum(4 + self._estimate(top) for top in {p.split("/", 1)[0] for p in ordered})
        # A little slack: the pieces' estimates add up to slightly less than the whole.
        room = max(0, int((available - reserve) * 0.95))
        tiers: dict[str, str] = {}
        used = 0
        seen_dirs: set[str] = set()
        for path in ordered:
            cached = self._cache[path]
            folder = _dir(path)
            dir_cost = 0 if folder in seen_dirs or not folder else self._estimate(folder + "/")
            full_cost = dir_cost + cached.heading_tokens + cached.full_tokens
            brief_cost = dir_cost + cached.heading_tokens + cached.brief_tokens
            if used + full_cost <= room * FULL_SHARE:
                tiers[path] = "full"
                used += full_cost
            elif used + brief_cost <= room:
                tiers[path] = "brief"
                used += brief_cost
            else:
                continue
            seen_dirs.add(folder)
            if used >= room:
                break
        return tiers

    def _header(self, project_name: str, summaries: dict[str, FileSummary]) -> str:
        languages = Counter(s.language for s in summaries.values())
        ordered = sorted(languages.items(), key=lambda item: (-item[1], item[0]))[:6]
        shown = ", ".join(f"{lang} {n}" for lang, n in ordered)
        return f"Project {project_name}: {len(summaries)} files ({shown})"

    def _metrics(self, summaries: dict[str, FileSummary]) -> str:
        values = list(summaries.values())
        hubs = sorted(
            (s for s in values if s.is_hub or s.dependents >= 3),
            key=lambda s: (-s.dependents, s.path),
        )[:METRIC_ITEMS]
        # Every test file counts as an entry point for the index; the shallow ones say more.
        entries = sorted(
            (s for s in values if s.is_entry_point and not is_test(s.path)),
            key=lambda s: (s.path.count("/"), s.path),
        )
        # A long changelog, log or lock file scores high on length alone: only code counts.
        complex_ = sorted(
            (s for s in values if s.is_code and s.complexity >= 1),
            key=lambda s: (-s.complexity, s.path),
        )
        lines = ["## Metrics"]
        if hubs:
            lines.append("hubs: " + ", ".join(f"{s.path} (used by {s.dependents})" for s in hubs))
        if entries:
            more = f", +{len(entries) - METRIC_ITEMS}" if len(entries) > METRIC_ITEMS else ""
            lines.append(
                "entry points: " + ", ".join(s.path for s in entries[:METRIC_ITEMS]) + more
            )
        if complex_:
            lines.append(
                "most complex: "
                + ", ".join(f"{s.path} ({s.complexity:g})" for s in complex_[:METRIC_ITEMS])
            )
        return "\n".join(lines) if len(lines) > 1 else ""

    def _compose(
        self,
        header: str,
        metrics: str,
        tiers: dict[str, str],
        summaries: dict[str, FileSummary],
        budget: int,
    ) -> str:
        parts = [header]
        if metrics:
            parts.append(metrics)
        lines = [FILES_TITLE]
        current_dir: str | None = None
        # Root files first, then each folder once: sorted by path, a root file after `lib/x`
        # would sit under the `lib/` heading with nothing to say it left the folder.
        for path in sorted(tiers, key=lambda p: (_dir(p), p)):
            summary = summaries[path]
            folder = _dir(path)
            if folder != current_dir:
                current_dir = folder
                if folder:
                    lines.append(folder + "/")
            heading = "  " + file_heading(summary)
            if tiers[path] == "brief":
                lines.append(heading + (f": {summary.brief}" if summary.brief else ""))
                continue
            lines.append(heading)
            if summary.full:
                lines.extend("    " + line for line in summary.full.splitlines())
        parts.append("\n".join(lines))
        folded = [p for p in summaries if p not in tiers]
        if folded:
            used = sum(self._estimate(p) for p in parts)
            parts.append(self._fold(folded, max(0, budget - used), budget))
        return "\n\n".join(parts)

    def _fold(self, paths: list[str], room: int, budget: int) -> str:
        """Folder lines for the files not shown, as deep as ``room`` allows. One line per top
        folder is the minimum (``render`` demotes files to make room for it) unless even that
        would take over a third of the budget; then only the biggest folders are named."""
        title = "## Not summarised (ask get_structure with a path for details)"
        depth_one = ""
        deepest = Counter(tuple(p.split("/")[:-1][:MAX_FOLD_DEPTH]) for p in paths)
        for depth in range(MAX_FOLD_DEPTH, 0, -1):
            groups: Counter[str] = Counter()
            for parts, count in deepest.items():
                groups["/".join(parts[:depth]) or "."] += count
            lines = [title] + [
                f"{folder}/  {n} file{'s' if n != 1 else ''}"
                for folder, n in sorted(groups.items())
            ]
            text = "\n".join(lines)
            if self._estimate(text) <= room:
                return text
            depth_one = text
        limit = budget // 3
        if self._estimate(depth_one) <= limit:
            return depth_one
        groups = Counter(p.split("/", 1)[0] if "/" in p else "." for p in paths)
        lines = [title]
        for folder, n in sorted(groups.items(), key=lambda item: (-item[1], item[0])):
            line = f"{folder}/  {n} files"
            if self._estimate("\n".join([*lines, line])) > limit - 10:
                lines.append(f"... {len(groups) - len(lines) + 1} more folders")
                break
            lines.append(line)
        return "\n".join(lines)
