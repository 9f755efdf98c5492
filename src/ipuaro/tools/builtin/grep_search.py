"""grep_search: text or regex search over the indexed files (the store, not the disk).

The model writes the patterns, and a pattern such as ``(\\w+\\s?)*;$`` or ``(.*)*ZZZ`` takes
exponential time in a backtracking engine. So matching uses the ``regex`` package (the syntax of
Python's ``re``, plus a time limit per call that stops a runaway match), runs in a worker thread
with the GIL released (the event loop keeps answering: other requests, cancel), and the whole
search shares one deadline: past :data:`SEARCH_SECONDS` the tool answers with an error naming
the likely cause instead of freezing the agent. A cancelled call stops at the next file and
within the deadline at worst.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import ClassVar

import regex
from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import folder_prefix
from ipuaro.tools.globs import compile_globs
from ipuaro.tools.limits import MAX_GREP_MATCHES, clip_line

BATCH = 256
"""Files fetched from the store per round trip."""
SEARCH_SECONDS = 5.0
"""How long matching may take over all files before the search stops with an error. Each
match call gets what is left as ``regex``'s ``timeout``, which counts the process's CPU time:
under heavy load the wall time to the answer is longer."""
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


class SearchTooSlow(Exception):
    """The pattern ran past the deadline."""

    def __init__(self, searched: int) -> None:
        super().__init__(searched)
        self.searched = searched


@dataclass
class _Search:
    """One search's matching, run in a worker thread."""

    pattern: regex.Pattern[str]
    candidates: list[str]
    ctx: ToolContext
    deadline: float
    stop: threading.Event = field(default_factory=threading.Event)
    matches: list[dict[str, object]] = field(default_factory=list)
    more: bool = False

    def _left(self, searched: int) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise SearchTooSlow(searched)
        return left

    def run(self) -> None:
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


class GrepSearch(BaseTool):
    name = "grep_search"
    description = (
        f"Search file contents for text (or a regex with regex=true); at most {MAX_GREP_MATCHES} "
        "matches as path:line: text. Narrow with include_pattern/exclude_pattern globs."
    )
    args_model = GrepSearchArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)
    time_limit: float = SEARCH_SECONDS

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
        search = _Search(pattern, candidates, ctx, time.monotonic() + self.time_limit)
        try:
            await asyncio.to_thread(search.run)
        except SearchTooSlow as slow:
            raise ToolError(
                f"the pattern {args.query!r} is too slow: the search timed out after "
                f"{self.time_limit:g} s ({slow.searched} of {len(candidates)} file(s) searched). "
                "Nested repetition such as (a+)* or (.*)* backtracks exponentially; use a simpler "
                "pattern (one quantifier per part, anchored text), narrow it with path or "
                "include_pattern, or search literally with regex=false."
            ) from None
        except asyncio.CancelledError:
            search.stop.set()  # the worker stops at its next file (or at the deadline)
            raise
        return ToolOutcome.ok(
            self._render(args, search.matches, search.more, searched),
            data={"query": args.query, "matches": search.matches, "truncated": search.more},
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
