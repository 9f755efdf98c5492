"""The check every applied edit gets before the model moves on: what the change broke.

Three findings, each with a position, read from the index the edit engine has just brought up
to date (no extra parse unless the new text has a syntax error):

- syntax errors the change introduced — tree-sitter ``ERROR``/``MISSING`` nodes that were not
  in the old text (compared by kind and line text, so errors that only moved are not news);
- definitions removed, renamed or re-signed whose uses in other files were not updated
  (:mod:`ipuaro.edits.impact`, the same check plan mode runs);
- imports of the changed file that no longer resolve: a module that matches no project file,
  or (Python) a name the project module no longer defines.

Nothing is blocked: the lines go into the tool result the model reads, and the typed
:class:`EditCheck` into the result's data for the front ends (``check`` in headless JSON).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from ipuaro.domain.checks import (
    BrokenCaller,
    EditCheckReport,
    ImportFinding,
    SyntaxFinding,
    UseSite,
)
from ipuaro.edits.impact import MayBreak, file_impact, parse_ast

if TYPE_CHECKING:
    import tree_sitter

    from ipuaro.domain.edits import FileChange
    from ipuaro.domain.files import FileAST, ImportInfo
    from ipuaro.store.protocol import Store

MAX_SYNTAX_SHOWN = 5
EXCERPT = 60


@dataclass(frozen=True)
class SyntaxProblem:
    path: str
    line: int
    column: int
    kind: str
    """``error`` (text the grammar cannot place) or ``missing`` (e.g. a closing brace)."""
    excerpt: str
    expected: str = ""
    """For ``missing``: what the parser expected there (``}``, ``)``)."""

    def text(self) -> str:
        what = f"missing `{self.expected}`" if self.kind == "missing" else "syntax error"
        return f"{self.path}:{self.line}:{self.column}: {what}: {self.excerpt}"


@dataclass(frozen=True)
class BrokenImport:
    path: str
    line: int
    source: str
    name: str
    reason: str

    def text(self) -> str:
        return (
            f"{self.path}:{self.line}: import of `{self.name}` from `{self.source}` {self.reason}"
        )


@dataclass
class EditCheck:
    syntax: list[SyntaxProblem] = field(default_factory=list)
    may_break: list[MayBreak] = field(default_factory=list)
    imports: list[BrokenImport] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.syntax or self.may_break or self.imports)

    def lines(self) -> list[str]:
        """What the model (and the user, under the diff) reads."""
        found = [f"new syntax error at {p.text()}" for p in self.syntax[:MAX_SYNTAX_SHOWN]]
        if len(self.syntax) > MAX_SYNTAX_SHOWN:
            found.append(f"… and {len(self.syntax) - MAX_SYNTAX_SHOWN} more syntax errors")
        found += [item.line() for item in self.may_break]
        found += [f"broken import at {item.text()}" for item in self.imports]
        return found

    def message(self) -> str:
        if self.clean:
            return ""
        return "check after the edit (fix these or say why not):\n" + "\n".join(
            f"- {line}" for line in self.lines()
        )

    def report(self) -> EditCheckReport:
        return EditCheckReport(
            syntax=[
                SyntaxFinding(
                    path=p.path,
                    line=p.line,
                    column=p.column,
                    kind="missing" if p.kind == "missing" else "error",
                    expected=p.expected,
                    excerpt=p.excerpt,
                )
                for p in self.syntax
            ],
            may_break=[
                BrokenCaller(
                    symbol=m.symbol,
                    path=m.path,
                    change="removed" if m.change == "removed" else "changed",
                    uses=[UseSite(path=u.path, line=u.line) for u in m.uses],
                    calls=m.call_sites,
                )
                for m in self.may_break
            ],
            imports=[
                ImportFinding(
                    path=i.path, line=i.line, source=i.source, name=i.name, reason=i.reason
                )
                for i in self.imports
            ],
            lines=self.lines(),
        )

    def to_json(self) -> dict[str, Any]:
        return self.report().model_dump(mode="json", by_alias=True)


def before_asts(store: Store, changes: Sequence[FileChange]) -> dict[str, FileAST | None]:
    """The old text's syntax summaries, taken before the write replaces them in the index.
    The index's copy is used when it was read from exactly that text; otherwise it is parsed."""
    from ipuaro.index.scan.reader import content_hash

    found: dict[str, FileAST | None] = {}
    for change in changes:
        if change.old_text is None:
            continue
        stored = store.get_file(change.path)
        if stored is not None and stored.hash == content_hash(
            change.old_text.encode("utf-8", "surrogatepass")
        ):
            found[change.path] = store.get_ast(change.path)
        else:
            found[change.path] = parse_ast(change.path, change.old_text)
    return found


def check_edit(
    store: Store,
    changes: Sequence[FileChange],
    before: dict[str, FileAST | None],
    *,
    indexed: bool = False,
) -> EditCheck:
    """What the applied ``changes`` broke; call after the index was updated with them
    (``indexed``: the re-index of exactly these texts succeeded, so the index's summaries are
    taken without comparing hashes)."""
    from ipuaro.index.parsers import language_for

    check = EditCheck()
    touched = {change.path for change in changes}
    for change in changes:
        if language_for(change.path) is None:
            continue
        after = None
        if change.new_text is not None:
            after = store.get_ast(change.path) if indexed else None
            after = after or _current_ast(store, change.path, change.new_text)
        old = before.get(change.path)
        broken: list[SyntaxProblem] = []
        if after is not None and change.new_text is not None and after.parse_error:
            # An old text the index read as clean has no errors to subtract: one parse fewer
            # (JSON's tolerated comments read as clean, so it always compares).
            clean = old is not None and not old.parse_error and old.language != "json"
            baseline = None if clean else change.old_text
            broken = new_syntax_errors(change.path, baseline, change.new_text)
            check.syntax += broken
        if old is not None and not broken:
            # With a new syntax error the parser loses the definitions around it: they would
            # all read as removed. The callers are checked by the edit that fixes the syntax.
            check.may_break += file_impact(store, change.path, old, after, touched)
        if after is not None:
            check.imports += _broken_imports(store, change.path, old, after)
    return check


def _current_ast(store: Store, path: str, text: str) -> FileAST | None:
    from ipuaro.index.scan.reader import content_hash

    stored = store.get_file(path)
    if stored is not None and stored.hash == content_hash(text.encode("utf-8", "surrogatepass")):
        ast = store.get_ast(path)
        if ast is not None:
            return ast
    return parse_ast(path, text)


def new_syntax_errors(path: str, old_text: str | None, new_text: str) -> list[SyntaxProblem]:
    """Error and missing nodes of ``new_text`` that ``old_text`` did not have (matched by kind
    and the text of their line, so an old error that only moved is not reported)."""
    from ipuaro.index.parsers import parse_tree

    new = list(_problems(path, parse_tree(path, new_text), new_text))
    if not new or old_text is None:
        return new
    old_tree = parse_tree(path, old_text)
    if not old_tree.root_node.has_error:
        return new
    seen = Counter(_key(p) for p in _problems(path, old_tree, old_text))
    fresh: list[SyntaxProblem] = []
    for problem in new:
        key = _key(problem)
        if seen[key]:
            seen[key] -= 1
        else:
            fresh.append(problem)
    return fresh


def _key(problem: SyntaxProblem) -> tuple[str, str, str]:
    return problem.kind, problem.expected, problem.excerpt


def _problems(path: str, tree: tree_sitter.Tree, text: str) -> Iterator[SyntaxProblem]:
    lines = text.splitlines()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_missing or node.is_error:
            row, column = node.start_point
            if row >= len(lines) or not lines[row].strip():
                # placed on a blank line or past the end (a brace missing at the end of the
                # file): the line the model has to look at is the last one with code
                row = _last_code_line(lines, row)
                column = len(lines[row]) if row < len(lines) else 0
            excerpt = lines[row].strip() if row < len(lines) else ""
            if len(excerpt) > EXCERPT:
                excerpt = excerpt[: EXCERPT - 1] + "…"
            kind = "missing" if node.is_missing else "error"
            expected = node.type if node.is_missing else ""
            yield SyntaxProblem(path, row + 1, column + 1, kind, excerpt, expected)
            continue
        if node.has_error:
            stack.extend(reversed(node.children))


def _last_code_line(lines: list[str], row: int) -> int:
    row = min(row, len(lines) - 1)
    while row > 0 and not lines[row].strip():
        row -= 1
    return max(row, 0)


def _broken_imports(
    store: Store, path: str, before: FileAST | None, after: FileAST
) -> list[BrokenImport]:
    """Imports the change added or rewrote that do not resolve. An import line the change left
    as it was is not looked at: editing this file cannot break it (a change to the file it
    imports is that file's own check: its removed names and their uses)."""
    old = before.imports if before is not None else []
    had = {(i.from_, i.name, i.imported) for i in old}
    internal = {_family(i.from_) for i in old if i.resolved is not None} - {""}
    added = [i for i in after.imports if (i.from_, i.name, i.imported) not in had]
    found: list[BrokenImport] = []
    for imported in added:
        lost = imported.resolved is None and _family(imported.from_) in internal
        if imported.unresolved or lost:
            # ``lost``: beside project imports of the same package prefix, it matches no
            # project file (Go module paths and Java packages are read as external)
            reason = "does not resolve: no project file matches that module"
            found.append(BrokenImport(path, imported.line, imported.from_, imported.name, reason))
    for imported, target in _missing_names(store, after.language, added):
        name = imported.imported or imported.name
        reason = f"does not resolve: {target} does not define it"
        found.append(BrokenImport(path, imported.line, imported.from_, name, reason))
    return sorted(found, key=lambda item: item.line)


def _family(specifier: str) -> str:
    """The package part of a module path: ``a/b`` of ``a/b/c``, ``shop`` of ``shop.Price``."""
    for separator in ("::", "/", "."):
        if separator in specifier.strip("."):
            return specifier.rsplit(separator, 1)[0]
    return ""


def _missing_names(
    store: Store, language: str | None, imports: list[ImportInfo]
) -> Iterator[tuple[ImportInfo, str]]:
    """Named imports whose project module does not define the name: Python ``from M import
    x`` and Rust ``use crate::m::x``."""
    for imported in imports:
        target = imported.resolved
        if target is None or target.endswith("__init__.py") or target.endswith("mod.rs"):
            continue  # a package: the name may be a submodule
        if language == "python":
            name = imported.imported
        elif language == "rust" and "::" in imported.from_:
            name = imported.name
            if name == PurePosixPath(target).stem:
                continue  # `use crate::price;` imports the module itself
        else:
            continue
        if not name or name in ("*", "self") or name.startswith("_"):
            continue  # a private name may be any module-level binding the index does not list
        defined = store.get_ast(target)
        if defined is None:
            continue
        names = {f.name for f in defined.functions} | {c.name for c in defined.classes}
        names |= {t.name for t in defined.types} | {e.name for e in defined.exports}
        names |= {i.name for i in defined.imports}
        if name not in names:
            yield imported, target
