"""get_todos: TODO / FIXME / HACK / XXX comments found by the indexer."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolOutcome
from ipuaro.tools.common import folder_prefix
from ipuaro.tools.limits import MAX_TODOS, clip_line


class GetTodosArgs(ArgsModel):
    path: str | None = Field(None, description="File or folder; default the whole project")
    tag: str | None = Field(None, description="Only this tag: TODO, FIXME, HACK or XXX")


class GetTodos(BaseTool):
    name = "get_todos"
    description = "List TODO, FIXME, HACK and XXX comments with path and line."
    args_model = GetTodosArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GetTodosArgs, ctx: ToolContext) -> ToolOutcome:
        prefix = folder_prefix(ctx, args.path)
        asts = ctx.store.get_asts()
        tag = args.tag.strip().upper() if args.tag else None
        found: list[dict[str, object]] = []
        for path in sorted(asts):
            if prefix is not None and path != prefix and not path.startswith(prefix + "/"):
                continue
            for todo in asts[path].todos:
                if tag is None or todo.tag == tag:
                    found.append(
                        {"path": path, "line": todo.line, "tag": todo.tag, "text": todo.text}
                    )
        if not found:
            where = f" under {prefix}" if prefix else ""
            return ToolOutcome.ok(f"No {tag or 'TODO/FIXME/HACK/XXX'} comments{where}.", data=[])
        shown = found[:MAX_TODOS]
        lines = [f"{len(found)} comment(s):"]
        lines += [f"{t['path']}:{t['line']}: {t['tag']} {clip_line(str(t['text']))}" for t in shown]
        if len(found) > len(shown):
            lines.append(
                f"… [{len(found) - len(shown)} more not shown; pass path or tag to narrow]"
            )
        return ToolOutcome.ok("\n".join(lines), data={"total": len(found), "todos": shown})
