"""grep_search: text or regex search over the indexed files (the store, not the disk).

The model writes the patterns, and a pattern such as ``(\\w+\\s?)*;$`` or ``(.*)*ZZZ`` takes
exponential time in a backtracking engine. So matching uses the ``regex`` package (the syntax of
Python's ``re``, plus a time limit per call that stops a runaway match), runs in a worker thread
with the GIL released (the event loop keeps answering: other requests, cancel), and the whole
search shares one wall-clock deadline: past :data:`SEARCH_SECONDS` the tool answers with an
error naming the likely cause instead of freezing the agent, and a cancelled call returns at
once. ``regex``'s limit counts CPU time, the only thing that stops one runaway match: a worker
the machine's load starves may run on after the answer until its match call has spent its CPU
budget (what was left of the deadline when the call began), then stops before the next file.
:func:`running_searches` lists such workers.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import ClassVar

import regex
from pydantic import Field

from ipuaro.domain.errors import IpuaroError
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import folder_prefix
from ipuaro.tools.globs import compile_globs
from ipuaro.tools.limits import MAX_GREP_MATCHES, clip_line

BATCH = 256
"""Files fetched from the store per round trip."""
SEARCH_SECONDS = 5.0
"""How long (wall clock) matching may take over all files before the tool answers with an
error. Each match call gets what is left as ``regex``'s ``timeout``, its CPU budget: under heavy
load the worker ends after the answer, never the answer after the worker."""
_REGEX_HINT = regex.compile(r"[\\^$|()\[\]+*?{}]")


class GrepSearchArgs(ArgsModel):
    query: str = Field(description="Text to find (or a regular expression with regex=true)")
    case_sensitive: bool = Field(False, description="Match upper/lower case exactly")
    include_pattern: str | None = Field(
        None, description="Only files matching this glob, e.g. *.ts"
    )
    exclude_pattern: str | None = Field(None, description="Skip files matching this glob")
    regex: bool = Field(False, description="Treat query as a Python regular expression")
    path: str | None = Field(None, description="Only in this folder or file")


class SearchTooSlow(IpuaroError):
    """The pattern ran past the deadline."""

    def __init__(self, searched: int) -> None:
        super().__init__(searched)
        self.searched = searched


@dataclass(eq=False)
class _Search:
    """One search's matching, run in a worker thread."""

    pattern: regex.Pattern[str]
    candidates: list[str]
    ctx: ToolContext
    deadline: float
    cpu_budget: float | None = None
    """Seconds of CPU one match call may spend (``regex``'s ``timeout``); None: the wall time
    left to the deadline when the call begins."""
    stop: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)
    matches: list[dict[str, object]] = field(default_factory=list)
    more: bool = False
    searched: int = 0

    def _left(self, searched: int) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0 or self.stop.is_set():
            raise SearchTooSlow(searched)
        return left if self.cpu_budget is None else self.cpu_budget

    def run(self) -> None:
        """In the worker thread; the search is listed in :func:`running_searches` from the
        moment the tool starts it until this returns."""
        try:
            self._run()
        finally:
            with _RUNNING:
                _RUNNING.searches.discard(self)
            self.finished.set()

    def _run(self) -> None:
        searched = 0
        for start in range(0, len(self.candidates), BATCH):
            batch = self.candidates[start : start + BATCH]
            if self.stop.is_set():  # cancelled: the store may be closing under us
                return
            files = self.ctx.store.get_files(batch)
            for path in batch:
                if self.stop.is_set():
                    return
                data = files.get(path)
                if data is None or not data.lines:
                    continue
                try:
                    self._search_file(path, data.lines, searched)
                except TimeoutError:
                    raise SearchTooSlow(searched) from None
                searched += 1
                self.searched = searched
                if self.more:
                    return

    def _search_file(self, path: str, lines: list[str], searched: int) -> None:
        text = "\n".join(lines)
        pattern = self.pattern
        if pattern.search(text, concurrent=True, timeout=self._left(searched)) is None:
            return
        if self.ctx.paths.is_secret(path):
            return  # secret files are never searched: their lines would leak
        last_line = -1
        found_all = pattern.finditer(text, concurrent=True, timeout=self._left(searched))
        for found in found_all:
            line = text.count("\n", 0, found.start()) + 1
            if line == last_line:
                continue
            last_line = line
            if len(self.matches) >= MAX_GREP_MATCHES:
                self.more = True
                return
            column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
            self.matches.append(
                {
                    "path": path,
                    "line": line,
                    "column": column,
                    "text": clip_line(lines[line - 1].strip()),
                }
            )


class _Running(threading.Condition):
    def __init__(self) -> None:
        super().__init__()
        self.searches: set[_Search] = set()


_RUNNING = _Running()


def running_searches(wait: float = 0) -> list[_Search]:
    """The searches whose worker thread is still matching (one that answered "timed out" or
    was cancelled runs on until its match call spends its CPU budget); ``wait``: seconds to
    wait for at least one."""
    with _RUNNING:
        _RUNNING.wait_for(lambda: _RUNNING.searches, timeout=wait)
        return list(_RUNNING.searches)


def _collect(worker: asyncio.Future[None]) -> None:
    """The outcome of a worker nobody awaits any more (the tool answered at the deadline)."""
    if not worker.cancelled():
        worker.exception()


class GrepSearch(BaseTool):
    name = "grep_search"
    description = (
        f"Search file contents for text (or a regex with regex=true); at most {MAX_GREP_MATCHES} "
        "matches as path:line: text. Narrow with include_pattern/exclude_pattern globs."
    )
    args_model = GrepSearchArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)
    time_limit: float = SEARCH_SECONDS
    cpu_budget: float | None = None
    """CPU seconds one match call may spend; None: the wall time left to the deadline."""

    async def execute(self, args: GrepSearchArgs, ctx: ToolContext) -> ToolOutcome:
        if not args.query:
            raise ToolError("query is empty; give the text to search for.")
        flags = regex.MULTILINE | (0 if args.case_sensitive else regex.IGNORECASE)
        source = args.query if args.regex else regex.escape(args.query)
        try:
            pattern = regex.compile(source, flags | regex.VERSION0)
        except (regex.error, OverflowError, RecursionError) as error:
            raise ToolError(
                f"query is not a valid regular expression ({error}); fix it or set regex=false "
                "to search for the text literally."
            ) from None
        candidates = self._candidates(ctx, args)
        searched = len(candidates)
        if not args.regex:  # the store skips, without decoding them, records without the text
            candidates = ctx.store.files_containing(
                candidates, args.query, case_sensitive=args.case_sensitive
            )
        search = _Search(
            pattern, candidates, ctx, time.monotonic() + self.time_limit, self.cpu_budget
        )
        with _RUNNING:
            _RUNNING.searches.add(search)
            _RUNNING.notify_all()
        worker = asyncio.ensure_future(asyncio.to_thread(search.run))
        worker.add_done_callback(_collect)
        try:
            # The wall-clock deadline is kept here, not by the worker: a worker that the
            # machine's load starves still spends its CPU budget, after the answer.
            await asyncio.wait({worker}, timeout=self.time_limit)
        except asyncio.CancelledError:
            search.stop.set()  # the worker stops at its next file or match call
            raise
        if not worker.done():
            search.stop.set()
            raise self._too_slow(args, search.searched, len(candidates))
        try:
            worker.result()
        except SearchTooSlow as slow:
            raise self._too_slow(args, slow.searched, len(candidates)) from None
        return ToolOutcome.ok(
            self._render(args, search.matches, search.more, searched),
            data={"query": args.query, "matches": search.matches, "truncated": search.more},
        )

    def _too_slow(self, args: GrepSearchArgs, searched: int, candidates: int) -> ToolError:
        return ToolError(
            f"the pattern {args.query!r} is too slow: the search timed out after "
            f"{self.time_limit:g} s ({searched} of {candidates} file(s) searched). "
            "Nested repetition such as (a+)* or (.*)* backtracks exponentially; use a simpler "
            "pattern (one quantifier per part, anchored text), narrow it with path or "
            "include_pattern, or search literally with regex=false."
        )

    @staticmethod
    def _candidates(ctx: ToolContext, args: GrepSearchArgs) -> list[str]:
        paths = sorted(ctx.store.file_hashes())
        prefix = folder_prefix(ctx, args.path)
        if prefix is not None:
            paths = [p for p in paths if p == prefix or p.startswith(prefix + "/")]
        if args.include_pattern:
            include = compile_globs(args.include_pattern)
            paths = [p for p in paths if include.match_file(p)]
        if args.exclude_pattern:
            exclude = compile_globs(args.exclude_pattern)
            paths = [p for p in paths if not exclude.match_file(p)]
        return paths

    @staticmethod
    def _render(
        args: GrepSearchArgs, matches: list[dict[str, object]], more: bool, searched: int
    ) -> str:
        if not matches:
            text = f"No matches for {args.query!r} in {searched} file(s)."
            if not args.regex and _REGEX_HINT.search(args.query):
                text += " The query was searched literally; set regex=true to use it as a regex."
            elif args.case_sensitive:
                text += " Try case_sensitive=false."
            return text
        lines = [f"{m['path']}:{m['line']}: {m['text']}" for m in matches]
        head = f"{len(matches)} match(es) for {args.query!r}:"
        if more:
            head = f"First {MAX_GREP_MATCHES} matches for {args.query!r} (more exist):"
            lines.append(
                f"… [more matches not shown (limit {MAX_GREP_MATCHES}); narrow the search with "
                "include_pattern, path, or a more specific query]"
            )
        return head + "\n" + "\n".join(lines)
