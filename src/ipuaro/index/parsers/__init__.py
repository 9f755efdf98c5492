"""Per-language tree-sitter parsers: one file's text -> its FileAST and index contributions.

>>> parsed = parse_source("src/app.ts", "export function main(): void {}\\n")
>>> parsed.ast.functions[0].name, parsed.ast.exports[0].type
('main', 'function')

Each file is parsed once and one query per language (``ipuaro/index/queries/*.scm``) collects
references, calls, comments and blocks in a single pass over the tree; declarations are read by
walking module-level nodes. Lines and columns are 1-based; columns count characters of the text
given. Syntax errors never raise: ``parse_error`` is set and everything outside the broken region
is still extracted.

Decisions (details in the module that implements each):

- Spans start at the first decorator (or ``export``) and end on the line of the closing token.
  An overloaded function or method is recorded once with its implementation's span and
  signature; signatures without an implementation (``.d.ts``) span first to last signature.
- Recorded: module-level functions (declarations, generators, arrow functions and function
  expressions bound to const/let/var, also behind ``memo``/``forwardRef``/``observer``), classes
  (class expressions bound to a name too) and their members, and the contents of TS namespaces.
  Functions nested in function bodies are not recorded; their calls count for the enclosing
  definition. A class field initialised with an arrow function is a method.
- Import ``name`` is the local binding; re-exports are imports too. Default exports are named by
  their local binding when there is one (``export default class App`` -> ``App``/``default``).
- Python exports are ``__all__`` when present, else every public module-level name.
- ``package.json`` keys also list ``scripts.<name>`` and ``<dependency section>.<name>``.
- A call is ``caller`` (``f``, ``Class.method``, ``Class`` for class bodies, ``<module>``) ->
  the last identifier of the callee; rendering ``<Component/>`` in JSX is a call.
- Models are built without validation (``_trusted``): every value is valid by construction,
  and validation cost more than the extraction. Tests compare them with validated models;
  ``bench/parse_identity.py`` compares the output with a base commit's over whole corpora.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from operator import attrgetter

import tree_sitter

from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.files import FileAST
from ipuaro.domain.indexes import FileIndexes, Reference, ReferenceTable
from ipuaro.index.parsers import _bulk, _data, _tags, _ts_syntax
from ipuaro.index.parsers._languages import (
    LANGUAGES,
    SUPPORTED_EXTENSIONS,
    captures,
    grammar,
    language_for,
    parser,
)
from ipuaro.index.parsers._python import PythonReader
from ipuaro.index.parsers._source import Collected, Source
from ipuaro.index.parsers._trusted import trusted
from ipuaro.index.parsers._ts_module import ModuleReader

_START_BYTE = attrgetter("start_byte")
_MODERN_TS = frozenset({"typescript", "tsx"})
"""Languages whose newer modifiers the grammar misses (see ``_ts_syntax``)."""

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "ParsedFile",
    "UnsupportedLanguageError",
    "language_for",
    "parse_source",
    "parse_tree",
    "parse_tree_only",
]


class UnsupportedLanguageError(IpuaroError, ValueError):
    """The path has no parser; check :func:`language_for` first."""


@dataclass(slots=True)
class ParsedFile:
    path: str
    ast: FileAST
    """The file's syntax summary; ``ast.language`` is set."""
    indexes: FileIndexes
    """Symbols, references and call edges this file contributes to the project indexes."""
    nesting: int
    """Deepest block nesting (function body = 1), for the complexity score."""

    def references(self) -> list[Reference]:
        """The file's references as models, in document order (built on demand: the indexer
        writes ``indexes.reference_table`` as it is)."""
        return self.indexes.all_references(self.path)


def parse_source(path: str, text: str) -> ParsedFile:
    """Parse ``text`` as the file at ``path`` (project-relative; stored in index entries).

    Raises UnsupportedLanguageError when ``language_for(path)`` is None; never raises because of
    what the source contains.
    """
    language = _header_language(_language_or_raise(path), path, text)
    if language == "yaml" and _data.yaml_grammar_unsafe(text):
        keys, todos = _data.yaml_by_lines(text)
        ast = FileAST(keys=keys, todos=todos, language=language, parse_error=True)
        return ParsedFile(path=path, ast=ast, indexes=FileIndexes(), nesting=0)
    source = Source(text)
    if language in _MODERN_TS:
        tree = _ts_syntax.parse(parser(language), source.data)
    else:
        tree = parser(language).parse(source.data)
    root = tree.root_node
    collected = Collected(path)
    reader = LANGUAGES[language].reader
    if reader == "tags":
        found = _tags.read(source, collected, grammar(language).query, root)
    else:
        found = captures(grammar(language), root)
        for name, nodes in found.items():
            # py-tree-sitter collects each name's nodes in a set: its order is the nodes'
            # hashes', so every list a reader takes is sorted (``_x`` names only serve the
            # query's predicates)
            if not name.startswith("_"):
                nodes.sort(key=_START_BYTE)
    parse_error = root.has_error
    references: ReferenceTable = {}
    calls = []
    nesting = 0
    if reader == "python":
        PythonReader(source, collected).read(root, found.get("import", []))
    elif reader == "json":
        collected.keys = _data.json_keys(source, root, path)
        parse_error = parse_error and not _data.json_error_is_tolerated(source, root, path)
    elif reader == "yaml":
        collected.keys = _data.yaml_keys(source, root)
    elif reader == "typescript":
        ModuleReader(source, collected).read(
            root, found.get("import.require", []), found.get("import.dynamic", [])
        )
    if reader not in ("json", "yaml"):
        references = _bulk.references(source, found.get("reference", []))
        if reader == "typescript":
            _bulk.jsdoc_references(source, found.get("comment", []), references)
        calls = _bulk.calls(source, path, found.get("call", []), collected.scopes)
        nesting = _bulk.nesting(found.get("block", []))
    ast = trusted(
        FileAST,
        imports=collected.imports,
        exports=collected.resolved_exports(),
        functions=collected.functions,
        classes=collected.classes,
        types=collected.types,
        todos=_bulk.todos(source, found.get("comment", [])),
        keys=collected.keys,
        language=language,
        parse_error=parse_error,
    )
    indexes = trusted(
        FileIndexes,
        symbols=collected.symbols,
        references=[],
        calls=calls,
        reference_table=references,
    )
    return ParsedFile(path=path, ast=ast, indexes=indexes, nesting=nesting)


def parse_tree(path: str, text: str) -> tree_sitter.Tree:
    """The syntax tree of ``text`` as ``parse_source`` sees it (newer TypeScript masked), for
    readers that need the nodes themselves (the reference judge)."""
    language = _header_language(_language_or_raise(path), path, text)
    data = Source(text).data
    if language in _MODERN_TS:
        return _ts_syntax.parse(parser(language), data)
    return parser(language).parse(data)


def parse_tree_only(path: str, text: str) -> None:
    """Parse without extracting anything: the floor parse_source is measured against."""
    language = _language_or_raise(path)
    if language == "yaml" and _data.yaml_grammar_unsafe(text):
        return  # the grammar would crash on it; parse_source reads it line by line
    parser(language).parse(text.encode("utf-8", "surrogatepass"))


_CPP_HEADER = re.compile(rb"^\s*(?:class|namespace|template\s*<|public:|private:)|\w::\w", re.M)


def _header_language(language: str, path: str, text: str) -> str:
    """``.h`` is C unless its text is C++ (a class, namespace, template or ``::``)."""
    if (
        language == "c"
        and path.endswith(".h")
        and _CPP_HEADER.search(text.encode("utf-8", "replace"))
    ):
        return "cpp"
    return language


def _language_or_raise(path: str) -> str:
    language = language_for(path)
    if language is None:
        raise UnsupportedLanguageError(
            f"no parser for {path!r}: supported extensions are {', '.join(SUPPORTED_EXTENSIONS)}"
            " (use language_for() to check a path first)"
        )
    return language
