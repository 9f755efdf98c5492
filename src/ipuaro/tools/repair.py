"""Arguments repaired from the index, never guessed.

A small model writes ``src/Cart.ts`` for ``src/cart.ts``, ``cart.js`` for ``cart.ts``, drops or
adds ``src/``, or gives a bare file name. When the path does not exist and exactly one indexed
file answers it in one of those ways, that file is used and the tool's result says so; with two
or more, nothing is guessed and the error lists them.

Only tools that need an existing file are repaired: a path given to ``create_file`` or
``edit_file`` (which creates) is what the model wants to create, and a guessed ``delete_file``
would be worse than an error.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ipuaro.tools.base import ToolContext, ToolError

REPAIRED_TOOLS = frozenset(
    {
        "get_lines",
        "get_function",
        "get_class",
        "get_dependencies",
        "get_dependents",
        "get_complexity",
        "edit_lines",
        "replace",
        "edit_symbol",
    }
)
_EXT_TWINS = {
    ".js": ".ts",
    ".ts": ".js",
    ".jsx": ".tsx",
    ".tsx": ".jsx",
    ".mjs": ".mts",
    ".mts": ".mjs",
    ".cjs": ".cts",
    ".cts": ".cjs",
}
MAX_LISTED = 8


def _key(path: str) -> str:
    """A path with the differences a repair forgives removed: case, a JS/TS extension, a
    leading ``src/``."""
    lowered = path.lower()
    stem, ext = posixpath.splitext(lowered)
    if ext in (".js", ".ts"):
        ext = ".ts"
    elif ext in (".jsx", ".tsx"):
        ext = ".tsx"
    elif ext in (".mjs", ".mts"):
        ext = ".mts"
    elif ext in (".cjs", ".cts"):
        ext = ".cts"
    return (stem + ext).removeprefix("src/")


def path_candidates(indexed: list[str], wanted: str) -> list[str]:
    """Indexed paths that ``wanted`` (which does not exist) plausibly means."""
    wanted = wanted.strip().removeprefix("./").lstrip("/")
    key = _key(wanted)
    found = [p for p in indexed if _key(p) == key]
    if not found:
        base = posixpath.basename(wanted)
        found = [p for p in indexed if posixpath.basename(p) == base]
        if not found:
            lowered = base.lower()
            found = [p for p in indexed if posixpath.basename(p).lower() == lowered]
    return sorted(set(found))


def repair_path(ctx: ToolContext, path: str) -> tuple[str, str | None]:
    """``path`` itself when it exists (or nothing answers it), else the one indexed file it
    means and a note for the model; several candidates raise a ToolError listing them."""
    from ipuaro.security.policy.paths import PathRefused

    try:
        rel = ctx.paths.resolve(path).rel
    except PathRefused:
        return path, None  # the tool reports the refusal in its own words
    try:
        if ctx.store.get_file(rel) is not None or (ctx.root / rel).exists():
            return path, None
    except OSError:  # a name too long, an unreadable folder: the tool says so itself
        return path, None
    found = path_candidates(list(ctx.store.file_hashes()), rel)
    if len(found) == 1:
        return found[0], f"(note: {rel} does not exist; used {found[0]}, the one file it matches)"
    if len(found) > 1:
        listed = ", ".join(found[:MAX_LISTED])
        raise ToolError(
            f"{rel} does not exist, and {len(found)} files could be meant: {listed}. "
            "Not guessing: call again with one of them."
        )
    return path, None


def repair_arguments(
    ctx: ToolContext, tool: str, args: Any, path_fields: tuple[str, ...]
) -> tuple[Any, list[str]]:
    """``args`` with repaired paths (a copy) and the notes to show the model."""
    if tool not in REPAIRED_TOOLS:
        return args, []
    notes: list[str] = []
    updates: dict[str, str] = {}
    for name in path_fields:
        value = getattr(args, name, None)
        if not isinstance(value, str) or not value.strip():
            continue
        fixed, note = repair_path(ctx, value)
        if note is not None:
            updates[name] = fixed
            notes.append(note)
    if not updates:
        return args, []
    return args.model_copy(update=updates), notes
