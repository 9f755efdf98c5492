"""get_complexity: complexity metrics of a file, or a ranked table for the project/folder."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.index.pipeline.analyzer import CODE_LANGUAGES
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import did_you_mean, folder_prefix
from ipuaro.tools.limits import MAX_TABLE_ROWS


class GetComplexityArgs(ArgsModel):
    path: str | None = Field(None, description="File or folder; default the whole project")
    limit: int = Field(MAX_TABLE_ROWS, ge=1, le=200, description="Rows in the ranked table")


class GetComplexity(BaseTool):
    name = "get_complexity"
    description = (
        "Complexity metrics (lines of code, nesting depth, imports, score). With a file path: "
        "that file and its longest functions; without, or with a folder: the most complex code "
        "files ranked."
    )
    args_model = GetComplexityArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GetComplexityArgs, ctx: ToolContext) -> ToolOutcome:
        prefix = folder_prefix(ctx, args.path)
        if prefix is not None:
            meta = ctx.store.get_meta(prefix)
            if meta is not None:
                return self._one_file(ctx, prefix)
        metas = ctx.store.get_metas()
        if prefix is not None:
            metas = {p: m for p, m in metas.items() if p.startswith(prefix + "/")}
            if not metas:
                raise ToolError(f"No indexed files under {prefix}. {did_you_mean(ctx, prefix)}")
        # Markdown, JSON, YAML… have lines but no code paths: ranking them among code misleads.
        metas = {p: m for p, m in metas.items() if m.file_type in CODE_LANGUAGES}
        if not metas:
            where = f"under {prefix}" if prefix else "in the project"
            raise ToolError(
                f"No code files {where} (Python, TypeScript, JavaScript); get_complexity ranks "
                "code only. Pass one file's path to see its metrics."
            )
        ranked = sorted(metas.items(), key=lambda item: (-item[1].complexity.score, item[0]))
        rows = ranked[: args.limit]
        header = f"{'score':>7} {'loc':>6} {'nest':>4} {'imp':>4}  path"
        lines = [
            f"Most complex of {len(metas)} code file(s){' under ' + prefix if prefix else ''}:"
        ]
        lines.append(header)
        for path, meta in rows:
            c = meta.complexity
            lines.append(f"{c.score:>7.1f} {c.loc:>6} {c.nesting:>4} {c.imports:>4}  {path}")
        if len(ranked) > len(rows):
            lines.append(f"… [{len(ranked) - len(rows)} more files; raise limit or pass a folder]")
        data = [{"path": p, **m.complexity.model_dump(by_alias=True)} for p, m in rows]
        return ToolOutcome.ok("\n".join(lines), data={"files": data, "total": len(metas)})

    @staticmethod
    def _one_file(ctx: ToolContext, path: str) -> ToolOutcome:
        meta = ctx.store.get_meta(path)
        assert meta is not None
        c = meta.complexity
        lines = [
            f"{path}: score {c.score:.1f}, {c.loc} lines of code, nesting depth {c.nesting}, "
            f"{c.imports} imports, {len(meta.dependents)} dependents"
        ]
        ast = ctx.store.get_ast(path)
        spans: list[tuple[int, str, int]] = []
        if ast is not None:
            spans += [(f.line_end - f.line_start + 1, f.name, f.line_start) for f in ast.functions]
            for cls in ast.classes:
                spans += [
                    (m.line_end - m.line_start + 1, f"{cls.name}.{m.name}", m.line_start)
                    for m in cls.methods
                ]
        if spans:
            spans.sort(key=lambda s: (-s[0], s[2]))
            lines.append("Longest functions:")
            lines += [
                f"  {length:>5} lines  {name} (line {start})" for length, name, start in spans[:10]
            ]
        data = {"path": path, **c.model_dump(by_alias=True), "dependents": len(meta.dependents)}
        return ToolOutcome.ok("\n".join(lines), data=data)
