"""The language servers' answers as ``find_references`` / ``find_definition`` results: the
same lines as the index's answers, with ``source: "language server"`` in the data."""

from __future__ import annotations

import asyncio

from ipuaro.index.lsp.server import Location
from ipuaro.index.lsp.symbols import server_definition, server_references
from ipuaro.store.shared import in_folder
from ipuaro.tools.base import ToolContext, ToolOutcome
from ipuaro.tools.common import plural
from ipuaro.tools.limits import MAX_DEFINITIONS, MAX_REFERENCES
from ipuaro.tools.snippets import line_texts

SOURCE = "language server"


async def references_outcome(
    ctx: ToolContext, symbol: str, name: str, prefix: str | None
) -> ToolOutcome | None:
    """The server's references to ``symbol``, or None (the index answers)."""
    servers = ctx.language_servers
    if servers is None:
        return None
    found = await asyncio.to_thread(server_references, servers, ctx.store, symbol)
    if found is None:
        return None
    refs = [loc for loc in found if in_folder(loc.path, prefix)]
    if not refs:
        where = f" under {prefix}" if prefix else ""
        return ToolOutcome.ok(
            f"No references to {symbol!r}{where} (from the {SOURCE}).",
            data={"symbol": name, "total": 0, "references": [], "source": SOURCE},
        )
    shown = refs[:MAX_REFERENCES]
    texts = line_texts(ctx.store, ((r.path, r.line) for r in shown))
    files = len({r.path for r in refs})
    lines = [
        f"{plural(len(refs), 'reference')} to {symbol!r} in {plural(files, 'file')} "
        f"(from the {SOURCE}):"
    ]
    lines += [f"{r.path}:{r.line}:{r.column}: {texts.get((r.path, r.line), '')}" for r in shown]
    if len(refs) > len(shown):
        lines.append(
            f"… [{len(refs) - len(shown)} more not shown (limit {MAX_REFERENCES}); pass path "
            "to look in one folder or file]"
        )
    data = {
        "symbol": name,
        "total": len(refs),
        "leftOut": 0,
        "references": [
            {"path": r.path, "line": r.line, "column": r.column, "confidence": "exact"}
            for r in shown
        ],
        "source": SOURCE,
    }
    return ToolOutcome.ok("\n".join(lines), data=data)


async def definition_outcome(ctx: ToolContext, symbol: str) -> ToolOutcome | None:
    """Where ``symbol`` — a name the index declares nowhere — is defined, by the server asked
    at a place the name is used; None: the index answers."""
    servers = ctx.language_servers
    if servers is None:
        return None
    name = symbol.rsplit(".", 1)[-1]
    found = await asyncio.to_thread(server_definition, servers, ctx.store, name)
    if not found:
        return None
    return _definitions(ctx, symbol, found)


def _definitions(ctx: ToolContext, symbol: str, found: list[Location]) -> ToolOutcome:
    shown = found[:MAX_DEFINITIONS]
    texts = line_texts(ctx.store, ((d.path, d.line) for d in shown))
    lines = [f"{len(found)} definition(s) of {symbol!r} (from the {SOURCE}):"]
    lines += [f"{d.path}:{d.line}: {texts.get((d.path, d.line), '')}" for d in shown]
    data = {
        "symbol": symbol,
        "definitions": [{"path": d.path, "line": d.line, "column": d.column} for d in shown],
        "source": SOURCE,
    }
    return ToolOutcome.ok("\n".join(lines), data=data)
