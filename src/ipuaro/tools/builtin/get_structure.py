"""get_structure: the project's (or a folder's) files as a tree with file counts."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import folder_prefix
from ipuaro.tools.limits import DEFAULT_TREE_DEPTH, MAX_TREE_ENTRIES


class GetStructureArgs(ArgsModel):
    path: str | None = Field(None, description="Folder to show; default the project root")
    depth: int = Field(
        DEFAULT_TREE_DEPTH, ge=1, le=20, description="How many folder levels to expand"
    )


@dataclass
class _Dir:
    dirs: dict[str, _Dir] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    count: int = 0


def build_tree(paths: list[str]) -> _Dir:
    root = _Dir()
    for path in paths:
        node = root
        node.count += 1
        *folders, name = path.split("/")
        for folder in folders:
            node = node.dirs.setdefault(folder, _Dir())
            node.count += 1
        node.files.append(name)
    return root


@dataclass
class _Render:
    depth: int
    limit: int
    lines: list[str] = field(default_factory=list)
    hidden: int = 0
    collapsed: list[str] = field(default_factory=list)

    def add(self, line: str) -> bool:
        if len(self.lines) >= self.limit:
            self.hidden += 1
            return False
        self.lines.append(line)
        return True

    def walk(self, node: _Dir, prefix: str, level: int, where: str) -> None:
        entries: list[tuple[str, _Dir | None]] = [(n, node.dirs[n]) for n in sorted(node.dirs)]
        entries += [(n, None) for n in sorted(node.files)]
        for index, (name, child) in enumerate(entries):
            last = index == len(entries) - 1
            branch = "└── " if last else "├── "
            if child is None:
                self.add(f"{prefix}{branch}{name}")
                continue
            child_path = f"{where}/{name}" if where else name
            self.add(f"{prefix}{branch}{name}/ ({child.count} files)")
            if level + 1 < self.depth:
                self.walk(child, prefix + ("    " if last else "│   "), level + 1, child_path)
            elif child.dirs or child.files:
                self.collapsed.append(child_path)


class GetStructure(BaseTool):
    name = "get_structure"
    description = (
        "Show the project's files as a tree with file counts per folder. Give a folder path to "
        "look inside it and depth to expand more levels."
    )
    args_model = GetStructureArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GetStructureArgs, ctx: ToolContext) -> ToolOutcome:
        prefix = folder_prefix(ctx, args.path)
        every = sorted(ctx.store.file_hashes())
        if prefix is None:
            paths = every
            title = f"{ctx.store.project_name}/"
        elif prefix in ctx.store.file_hashes():
            data = ctx.store.get_file(prefix)
            size = f"{len(data.lines)} lines" if data is not None else ""
            return ToolOutcome.ok(f"{prefix} is a file ({size}); use get_lines to read it.")
        else:
            paths = [p[len(prefix) + 1 :] for p in every if p.startswith(prefix + "/")]
            title = f"{prefix}/"
            if not paths:
                folders = sorted({p.rsplit("/", 1)[0] for p in every if "/" in p})
                close = difflib.get_close_matches(prefix, folders, n=5, cutoff=0.5)
                hint = f" Did you mean: {', '.join(close)}?" if close else ""
                raise ToolError(f"No indexed files under {prefix}/.{hint}")
        tree = build_tree(paths)
        render = _Render(args.depth, MAX_TREE_ENTRIES)
        render.walk(tree, "", 0, prefix or "")
        text = f"{title} ({tree.count} files)\n" + "\n".join(render.lines)
        notes: list[str] = []
        if render.hidden:
            notes.append(
                f"{render.hidden} more entries not shown (limit {MAX_TREE_ENTRIES}); "
                "call get_structure with a folder path to see its part"
            )
        if render.collapsed:
            shown = ", ".join(render.collapsed[:5]) + (" …" if len(render.collapsed) > 5 else "")
            notes.append(
                f"folders deeper than depth={args.depth} are collapsed ({shown}); call "
                "get_structure with that path or a larger depth to expand them"
            )
        if notes:
            text += "\n… [" + "; ".join(notes) + "]"
        return ToolOutcome.ok(
            text,
            data={"path": prefix or ".", "files": tree.count},
            details={"tree": text},
        )
