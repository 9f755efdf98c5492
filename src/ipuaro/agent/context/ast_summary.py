"""Render one file's AST summary for the prompt: signatures with line spans, never bodies.

Two renderings per file: the full block (imports, dependencies, functions, classes with their
methods, types) and a one-line brief (names only) used when the budget is tight. Both are pure
functions of the stored ``FileAST`` / ``FileMeta`` so they can be cached by content hash.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from ipuaro.domain import ClassInfo, FileAST, FileMeta, FunctionInfo, MethodInfo

MAX_SIGNATURE = 110
"""Characters of one signature line before it is cut (long default values, unions…)."""

MAX_LIST = 8
"""Items shown in an imports / dependencies / keys list before ``+N``."""

MAX_METHODS = 15
MAX_FUNCTIONS = 25
"""A summary is an overview: past these, ``+N more`` points at get_class / get_structure."""

DATA_LANGUAGES = frozenset({"json", "yaml", "properties", "udev"})
"""Parsed for their keys, but data, not code: never "complex" however long they are."""

_WORD = re.compile(r"[A-Za-z][a-z0-9]*|[A-Z]+(?![a-z])|[0-9]+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class FileSummary:
    """Everything the context builder needs about one file, cached by content hash."""

    path: str
    full: str
    """Lines of the full block (indented, no trailing newline); empty when there is no AST."""
    brief: str
    """Names only, for one line after the file name (may be empty)."""
    words: frozenset[str]
    """Lower-case words of the path and symbol names, to match the user's message."""
    path_words: frozenset[str]
    """The part of ``words`` that comes from the path (a stronger match)."""
    language: str
    is_code: bool
    """Parsed by a code grammar: prose, logs and data files (however long) are not."""
    loc: int
    """Non-blank lines, not the file's length (line spans may go past it)."""
    dependents: int
    is_hub: bool
    is_entry_point: bool
    complexity: float


def split_words(text: str) -> set[str]:
    """``QuerySet.filter`` → {queryset, query, set, filter}: whole identifiers (an exact name is
    the strongest match) and their camelCase / snake_case parts, lower-cased, 3+ letters."""
    words = {w.lower() for w in _WORD.findall(text) if len(w) >= 3}
    words.update(w.lower().strip("_") for w in _IDENTIFIER.findall(text) if len(w) >= 3)
    words.discard("")
    return words


def _cut(text: str, limit: int = MAX_SIGNATURE) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _listing(items: list[str], limit: int = MAX_LIST) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", +{len(items) - limit}" if len(items) > limit else "")


def _span(start: int, end: int) -> str:
    return f"L{start}" if start == end else f"L{start}-{end}"


def _params(params: list[str]) -> str:
    # Python methods carry ``self``/``cls``: noise for the model, it knows the convention.
    shown = [p for p in params if p not in ("self", "cls")]
    return ", ".join(shown)


def _function_line(fn: FunctionInfo) -> str:
    prefix = "async fn" if fn.is_async else "fn"
    ret = f" -> {fn.return_type}" if fn.return_type else ""
    mark = " export" if fn.is_exported else ""
    sig = _cut(f"{prefix} {fn.name}({_params(fn.params)}){ret}")
    return f"{sig} {_span(fn.line_start, fn.line_end)}{mark}"


def _method_text(method: MethodInfo) -> str:
    flags = []
    if method.is_static:
        flags.append("static")
    if method.is_async:
        flags.append("async")
    if method.visibility != "public":
        flags.append(method.visibility)
    if method.kind in ("getter", "setter"):
        flags.append("get" if method.kind == "getter" else "set")
    head = " ".join(flags)
    ret = f" -> {method.return_type}" if method.return_type else ""
    sig = _cut(f"{method.name}({_params(method.params)}){ret}", 80)
    return f"{head + ' ' if head else ''}{sig} {_span(method.line_start, method.line_end)}"


def _class_lines(cls: ClassInfo) -> list[str]:
    bases = ([cls.extends] if cls.extends else []) + list(cls.implements)
    base_text = f"({', '.join(bases)})" if bases else ""
    mark = " export" if cls.is_exported else ""
    lines = [f"class {cls.name}{_cut(base_text, 60)} {_span(cls.line_start, cls.line_end)}{mark}"]
    if cls.methods:
        shown = "; ".join(_method_text(m) for m in cls.methods[:MAX_METHODS])
        more = len(cls.methods) - MAX_METHODS
        lines.append("  " + shown + (f"; +{more} more (get_class)" if more > 0 else ""))
    if cls.properties:
        names = [p.name for p in cls.properties]
        lines.append("  props: " + _listing(names, 12))
    return lines


def _relative(path: str, target: str) -> str:
    """A dependency shown relative to the file's folder when that is shorter."""
    folder = posixpath.dirname(path)
    if folder and target.startswith(folder + "/"):
        return target[len(folder) + 1 :]
    return target


def summarise_file(path: str, ast: FileAST | None, meta: FileMeta | None) -> FileSummary:
    lines: list[str] = []
    names: list[str] = []
    if ast is not None and not ast.parse_error:
        external = sorted({i.from_ for i in ast.imports if i.type != "internal"})
        if external:
            lines.append("imports: " + _listing(external))
        unresolved = sorted({i.from_ for i in ast.imports if i.unresolved})
        if unresolved:
            lines.append("unresolved imports: " + _listing(unresolved))
        exported = [e.name for e in ast.exports]
        if exported:
            lines.append("exports: " + _listing(exported, 12))
        for fn in ast.functions[:MAX_FUNCTIONS]:
            lines.append(_function_line(fn))
        if len(ast.functions) > MAX_FUNCTIONS:
            lines.append(f"+{len(ast.functions) - MAX_FUNCTIONS} more functions (get_structure)")
        names.extend(fn.name for fn in ast.functions)
        for cls in ast.classes:
            lines.extend(_class_lines(cls))
            names.append(cls.name)
        for typ in ast.types:
            mark = " export" if typ.is_exported else ""
            lines.append(f"{typ.kind} {typ.name} {_span(typ.line_start, typ.line_end)}{mark}")
            names.append(typ.name)
        if ast.keys:
            lines.append("keys: " + _listing(ast.keys, 12))
    elif ast is not None and ast.parse_error:
        lines.append("(parse error: no summary; read it with get_lines)")
    if meta is not None and meta.dependencies:
        deps = [_relative(path, d) for d in meta.dependencies]
        lines.append("deps: " + _listing(deps))
    path_words = frozenset(split_words(path))
    words = set(path_words)
    if ast is not None:
        for name in names:
            words |= split_words(name)
        for cls in ast.classes:
            for method in cls.methods:
                words |= split_words(method.name)
    brief_names = names[:6] + ([f"+{len(names) - 6}"] if len(names) > 6 else [])
    language = meta.file_type if meta else (ast.language if ast and ast.language else "text")
    return FileSummary(
        path=path,
        full="\n".join(lines),
        brief=", ".join(brief_names),
        words=frozenset(words),
        path_words=path_words,
        language=language,
        is_code=ast is not None and language not in DATA_LANGUAGES,
        loc=meta.complexity.loc if meta else 0,
        dependents=len(meta.dependents) if meta else 0,
        is_hub=bool(meta and meta.is_hub),
        is_entry_point=bool(meta and meta.is_entry_point),
        complexity=meta.complexity.score if meta else 0.0,
    )


def file_heading(summary: FileSummary) -> str:
    """``cart.py  python 60 loc hub used-by 3 entry`` — the name as listed under its folder.
    ``loc`` counts non-blank lines: the file is longer, so it must not read as the length.

    ASCII only: the prompt is estimated and tokenised faster, and small models read it as well."""
    tags = [summary.language]
    if summary.loc:
        tags.append(f"{summary.loc} loc")
    if summary.is_hub:
        tags.append("hub")
    if summary.dependents:
        tags.append(f"used-by {summary.dependents}")
    if summary.is_entry_point:
        tags.append("entry")
    return f"{posixpath.basename(summary.path)}  {' '.join(tags)}"
