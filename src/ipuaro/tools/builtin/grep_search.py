"""grep_search: text or regex search over the indexed files (the store, not the disk)."""

from __future__ import annotations

import re
from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import folder_prefix
from ipuaro.tools.globs import compile_globs
from ipuaro.tools.limits import MAX_GREP_MATCHES, clip_line

BATCH = 256
"""Files fetched from the store per round trip."""
_REGEX_HINT = re.compile(r"[\\^$|()\[\]+*?{}]")


class GrepSearchArgs(ArgsModel):
    query: str = Field(description="Text to find (or a regular expression with regex=true)")
    case_sensitive: bool = Field(False, description="Match upper/lower case exactly")
    include_pattern: str | None = Field(
        None, description="Only files matching this glob, e.g. *.ts"
    )
    exclude_pattern: str | None = Field(None, description="Skip files matching this glob")
    regex: bool = Field(False, description="Treat query as a Python regular expression")
    path: str | None = Field(None, description="Only in this folder or file")


class GrepSearch(BaseTool):
    name = "grep_search"
    description = (
        f"Search file contents for text (or a regex with regex=true); at most {MAX_GREP_MATCHES} "
        "matches as path:line: text. Narrow with include_pattern/exclude_pattern globs."
    )
    args_model = GrepSearchArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GrepSearchArgs, ctx: ToolContext) -> ToolOutcome:
        if not args.query:
            raise ToolError("query is empty; give the text to search for.")
        flags = re.MULTILINE | (0 if args.case_sensitive else re.IGNORECASE)
        source = args.query if args.regex else re.escape(args.query)
        try:
            pattern = re.compile(source, flags)
        except re.error as error:
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
        matches: list[dict[str, object]] = []
        more = False
        for start in range(0, len(candidates), BATCH):
            batch = candidates[start : start + BATCH]
            files = ctx.store.get_files(batch)
            for path in batch:
                data = files.get(path)
                if data is None or not data.lines:
                    continue
                text = "\n".join(data.lines)
                if pattern.search(text) is None:
                    continue
                if ctx.paths.is_secret(path):
                    continue  # secret files are never searched: their lines would leak
                last_line = -1
                for found in pattern.finditer(text):
                    line = text.count("\n", 0, found.start()) + 1
                    if line == last_line:
                        continue
                    last_line = line
                    if len(matches) >= MAX_GREP_MATCHES:
                        more = True
                        break
                    matches.append(
                        {
                            "path": path,
                            "line": line,
                            "column": found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1,
                            "text": clip_line(data.lines[line - 1].strip()),
                        }
                    )
                if more:
                    break
            if more:
                break
        return ToolOutcome.ok(
            self._render(args, matches, more, searched),
            data={"query": args.query, "matches": matches, "truncated": more},
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
