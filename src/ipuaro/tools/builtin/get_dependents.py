"""get_dependents: which project files import this file."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import did_you_mean, project_path


class GetDependentsArgs(ArgsModel):
    path: str = Field(description="File to inspect")


class GetDependents(BaseTool):
    name = "get_dependents"
    description = "List the project files that import this file (who breaks if it changes)."
    args_model = GetDependentsArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GetDependentsArgs, ctx: ToolContext) -> ToolOutcome:
        rel = project_path(ctx, args.path)
        meta = ctx.store.get_meta(rel)
        if meta is None:
            raise ToolError(f"{rel} is not in the index. {did_you_mean(ctx, rel)}")
        dependents = list(meta.dependents)
        flags = [f for f, on in (("hub", meta.is_hub), ("entry point", meta.is_entry_point)) if on]
        marks = f" [{', '.join(flags)}]" if flags else ""
        lines = [f"{len(dependents)} project file(s) import {rel}{marks}:"]
        lines += [f"  {p}" for p in dependents] or ["  (none)"]
        data = {
            "path": rel,
            "dependents": dependents,
            "isHub": meta.is_hub,
            "isEntryPoint": meta.is_entry_point,
        }
        return ToolOutcome.ok("\n".join(lines), data=data)
