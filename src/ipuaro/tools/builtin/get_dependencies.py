"""get_dependencies: what a file imports — project files (resolved) and packages."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import did_you_mean, project_path


class GetDependenciesArgs(ArgsModel):
    path: str = Field(description="File to inspect")


class GetDependencies(BaseTool):
    name = "get_dependencies"
    description = (
        "List what a file depends on: the project files it imports and the external packages."
    )
    args_model = GetDependenciesArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GetDependenciesArgs, ctx: ToolContext) -> ToolOutcome:
        rel = project_path(ctx, args.path)
        meta = ctx.store.get_meta(rel)
        ast = ctx.store.get_ast(rel)
        if meta is None and ast is None:
            raise ToolError(f"{rel} is not in the index. {did_you_mean(ctx, rel)}")
        internal = list(meta.dependencies) if meta is not None else []
        external: list[str] = []
        builtin: list[str] = []
        unresolved: list[str] = []
        for item in ast.imports if ast is not None else []:
            if item.type == "external" and item.from_ not in external:
                external.append(item.from_)
            elif item.type == "builtin" and item.from_ not in builtin:
                builtin.append(item.from_)
            elif item.type == "internal" and item.unresolved and item.from_ not in unresolved:
                unresolved.append(item.from_)
        lines = [f"{rel} depends on {len(internal)} project file(s):"]
        lines += [f"  {p}" for p in internal] or ["  (none)"]
        if external:
            lines.append(f"external packages ({len(external)}): {', '.join(external)}")
        if builtin:
            lines.append(f"built-in modules ({len(builtin)}): {', '.join(builtin)}")
        if unresolved:
            lines.append(f"imports that match no project file: {', '.join(unresolved)}")
        data = {
            "path": rel,
            "internal": internal,
            "external": external,
            "builtin": builtin,
            "unresolved": unresolved,
        }
        return ToolOutcome.ok("\n".join(lines), data=data)
