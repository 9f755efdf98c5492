"""edit_symbol: replace, insert next to, or delete a function, method or class by name.

The symbol's lines come from the index's syntax tree (TypeScript, JavaScript, Python), so the
model sends no ``old`` text and no line numbers — the two things small models get wrong. The
change takes the same path as every edit: diff → confirm → undo → atomic write → re-index.
"""

from __future__ import annotations

import difflib
import posixpath
from dataclasses import dataclass
from typing import ClassVar, Literal

from pydantic import Field, field_validator

from ipuaro.edits.symbols import Span, SymbolEditError, edit_symbol_lines
from ipuaro.edits.text import Lines
from ipuaro.tools.base import ArgsModel, BaseTool, FileChange, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import project_path, short_hash
from ipuaro.tools.editing import apply_change, read_disk_allowed, require_existing

LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
}
_ACTIONS = {
    "replace": "replace",
    "update": "replace",
    "rewrite": "replace",
    "edit": "replace",
    "replace_body": "replace_body",
    "body": "replace_body",
    "body_only": "replace_body",
    "insert_after": "insert_after",
    "after": "insert_after",
    "add_after": "insert_after",
    "append": "insert_after",
    "insert_before": "insert_before",
    "before": "insert_before",
    "add_before": "insert_before",
    "prepend": "insert_before",
    "delete": "delete",
    "remove": "delete",
}
MAX_LISTED = 10
CLOSE_SYMBOL = 0.85


class EditSymbolArgs(ArgsModel):
    symbol: str = Field(
        description="Function, method or class: `applyDiscount`, `Cart.total`, or "
        "`module.func` (module = file name without extension)"
    )
    action: Literal["replace", "replace_body", "insert_before", "insert_after", "delete"] = Field(
        "replace",
        description="replace the whole symbol, replace_body (keep its signature), "
        "insert_before / insert_after it, or delete it",
    )
    content: str = Field(
        "", description="The new code (any indentation; it is re-indented to fit). Not for delete"
    )
    path: str | None = Field(
        None, description="File that defines it; leave out to search the whole project"
    )
    expected_hash: str | None = Field(
        None, description="The file hash you last saw; the edit is refused if the file changed"
    )

    @field_validator("action", mode="before")
    @classmethod
    def _action_alias(cls, value: object) -> object:
        if isinstance(value, str):
            key = value.strip().lower().replace("-", "_").replace(" ", "_")
            return _ACTIONS.get(key, value)
        return value


@dataclass(frozen=True)
class Symbol:
    path: str
    qualified: str
    kind: str
    start: int
    end: int


class EditSymbol(BaseTool):
    name = "edit_symbol"
    description = (
        "Preferred way to change a whole function, method or class: name it (`createUser`, "
        "`UserService.find`), say what to do (replace, replace_body, insert_after, "
        "insert_before, delete) and give the new code; no old text or line numbers needed, "
        "indentation is fixed for you. Shows a diff for confirmation. Example: "
        '{"symbol": "UserService.count", "action": "replace_body", "content": '
        '"return this.users.length + 0;"}'
    )
    args_model = EditSymbolArgs
    read_only = False
    needs_confirmation = True
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: EditSymbolArgs, ctx: ToolContext) -> ToolOutcome:
        wanted = args.symbol.strip().removesuffix("()").strip()
        if not wanted:
            raise ToolError("`symbol` is empty; name the function, method or class to change.")
        symbol, note = locate(ctx, wanted, args.path)
        disk = await read_disk_allowed(ctx, symbol.path)
        text = require_existing(ctx, disk)
        assert disk.hash is not None
        _check_hash(ctx, disk.rel, disk.hash, args.expected_hash)
        stored = ctx.store.get_file(disk.rel)
        if stored is None or stored.hash != disk.hash:
            ctx.reindex([disk.rel], [])  # the index must describe the bytes being edited
            symbol, note = locate(ctx, symbol.qualified, disk.rel)
            stored = ctx.store.get_file(disk.rel)
            if stored is None or stored.hash != disk.hash:
                raise ToolError(f"{disk.rel} could not be re-indexed; use replace instead.")
        lines = Lines.of(text)
        language = LANGUAGES[posixpath.splitext(disk.rel)[1].lower()]
        span = Span(symbol.start, symbol.end, language)
        try:
            new_lines = edit_symbol_lines(lines.lines, span, args.action, args.content)
        except SymbolEditError as error:
            raise ToolError(
                f"cannot {args.action} {symbol.kind} {symbol.qualified} ({disk.rel}:"
                f"{symbol.start}-{symbol.end}): {error}."
            ) from None
        description = (
            f"edit_symbol {args.action} {symbol.kind} {symbol.qualified} in {disk.rel} "
            f"(lines {symbol.start}-{symbol.end})"
        )
        change = FileChange(disk.rel, text, lines.with_lines(new_lines))
        outcome = await apply_change(ctx, change, description)
        if note is not None:
            outcome.content = f"{note}\n{outcome.content}"
            if outcome.error is not None:
                outcome.error = f"{note}\n{outcome.error}"
        return outcome


def _check_hash(ctx: ToolContext, rel: str, current: str, expected: str | None) -> None:
    wanted = (expected or "").strip().lower()
    if not wanted:
        seen = ctx.reads.get(rel)
        wanted = seen.hash if seen is not None else ""
    if wanted and not current.startswith(wanted):
        raise ToolError(
            f"{rel} changed since you read it (hash {short_hash(wanted)} seen, now "
            f"{short_hash(current)}); read the symbol again (get_function / get_class) and "
            "redo the edit."
        )


def _symbols_in(ctx: ToolContext, path: str) -> list[Symbol]:
    ast = ctx.store.get_ast(path)
    if ast is None:
        return []
    found = [Symbol(path, f.name, "function", f.line_start, f.line_end) for f in ast.functions]
    for cls in ast.classes:
        found.append(Symbol(path, cls.name, "class", cls.line_start, cls.line_end))
        found += [
            Symbol(path, f"{cls.name}.{m.name}", m.kind, m.line_start, m.line_end)
            for m in cls.methods
        ]
    return found


def _matching(symbols: list[Symbol], wanted: str) -> list[Symbol]:
    exact = [s for s in symbols if s.qualified == wanted]
    if exact:
        return exact
    if "." not in wanted:  # a bare method name
        return [s for s in symbols if s.qualified.rsplit(".", 1)[-1] == wanted]
    module, _, rest = wanted.partition(".")  # module.func / module.Class.method
    return [
        s
        for s in symbols
        if s.qualified == rest and posixpath.splitext(posixpath.basename(s.path))[0] == module
    ]


def locate(ctx: ToolContext, wanted: str, path: str | None) -> tuple[Symbol, str | None]:
    """The one symbol ``wanted`` names (in ``path``, or anywhere in the index), and a note when
    the name was repaired (one close match: case, a typo); several or none raise a ToolError
    listing the candidates."""
    if path is not None and path.strip():
        rel = project_path(ctx, path)
        if ctx.store.get_file(rel) is None:
            from ipuaro.tools.common import did_you_mean

            raise ToolError(f"File not found in the index: {rel}. {did_you_mean(ctx, rel)}")
        _check_language(rel)
        paths = [rel]
    else:
        short = wanted.rsplit(".", 1)[-1]
        paths = sorted({d.path for d in ctx.store.find_definitions(short)})
        paths = [p for p in paths if posixpath.splitext(p)[1].lower() in LANGUAGES]
    if path is None and not paths:
        paths = [p for p in sorted(ctx.store.file_hashes()) if _supported(p)]
    symbols = [s for p in paths for s in _symbols_in(ctx, p)]
    found = _matching(symbols, wanted)
    if len(found) == 1:
        return found[0], None
    if not found:
        found = _close(symbols, wanted)
        if len(found) == 1:
            chosen = found[0]
            return chosen, (
                f"(note: no symbol is named {wanted!r}; used {chosen.qualified} in "
                f"{chosen.path}, the one close match)"
            )
    if found:
        listed = "; ".join(
            f"{s.qualified} ({s.kind}) in {s.path}:{s.start}-{s.end}" for s in found[:MAX_LISTED]
        )
        raise ToolError(
            f"{wanted!r} names {len(found)} symbols: {listed}. Say which: pass `path`, or the "
            "qualified name (Class.method)."
        )
    names = sorted({s.qualified for s in symbols})
    close = difflib.get_close_matches(wanted, names, n=5, cutoff=0.6)
    where = f" in {paths[0]}" if path is not None and paths else ""
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    raise ToolError(
        f"No function, method or class {wanted!r}{where}.{hint} find_definition or "
        "get_structure shows what exists."
    )


def _close(symbols: list[Symbol], wanted: str) -> list[Symbol]:
    """Symbols ``wanted`` plausibly misspells: the same name in another case, else names at
    least 85 % alike (on the qualified name, or on the last part for a bare name)."""
    lowered = wanted.lower()
    same_case = [s for s in symbols if s.qualified.lower() == lowered]
    if not same_case and "." not in wanted:
        same_case = [s for s in symbols if s.qualified.rsplit(".", 1)[-1].lower() == lowered]
    if same_case:
        return same_case

    def key(symbol: Symbol) -> str:
        return symbol.qualified if "." in wanted else symbol.qualified.rsplit(".", 1)[-1]

    return [
        s
        for s in symbols
        if difflib.SequenceMatcher(a=wanted, b=key(s), autojunk=False).ratio() >= CLOSE_SYMBOL
    ]


def _supported(rel: str) -> bool:
    return posixpath.splitext(rel)[1].lower() in LANGUAGES


def _check_language(rel: str) -> None:
    if not _supported(rel):
        raise ToolError(
            f"edit_symbol works on TypeScript, JavaScript and Python files; {rel} is none of "
            "them. Use replace or edit_file."
        )
