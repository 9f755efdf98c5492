"""Which grammar reads which file, and the lazily built tree-sitter objects for each grammar.

Languages and compiled queries are immutable and shared by the whole process; parsers hold
per-parse state, so each thread gets its own. Everything is built on first use: importing this
module loads no grammar. Indexing runs in a process pool, where each worker fills its own caches.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib import resources
from typing import Final

import tree_sitter

_EXTENSIONS: Final[dict[str, str]] = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "jsx",
    ".py": "python",
    ".pyi": "python",
    ".json": "json",
    ".yml": "yaml",
    ".yaml": "yaml",
}

# Language name -> (grammar, query files joined into its one query). JSX is parsed by the
# JavaScript grammar, which reads JSX; the plain TypeScript grammar has no JSX nodes.
_GRAMMARS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "typescript": ("typescript", ("typescript",)),
    "tsx": ("tsx", ("typescript", "jsx")),
    "javascript": ("javascript", ("javascript", "jsx")),
    "jsx": ("javascript", ("javascript", "jsx")),
    "python": ("python", ("python",)),
    "json": ("json", ("json",)),
    "yaml": ("yaml", ("yaml",)),
}

SUPPORTED_EXTENSIONS: Final[tuple[str, ...]] = tuple(sorted(_EXTENSIONS))


def language_for(path: str) -> str | None:
    """The language name for ``path`` by its extension (``.d.ts`` is TypeScript), or None."""
    name = path.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    dot = name.rfind(".")
    if dot <= 0:
        return None
    return _EXTENSIONS.get(name[dot:].lower())


@dataclass(frozen=True, slots=True)
class Grammar:
    """A language with its compiled capture query (``queries/<name>.scm`` files)."""

    language: tree_sitter.Language
    query: tree_sitter.Query


_grammar_cache: dict[str, Grammar] = {}
_grammar_lock = threading.Lock()
_thread_parsers = threading.local()


def grammar(language_name: str) -> Grammar:
    """The cached grammar for a name returned by :func:`language_for`."""
    cached = _grammar_cache.get(language_name)
    if cached is not None:
        return cached
    if language_name not in _GRAMMARS:
        raise ValueError(
            f"no parser for language {language_name!r}; known: {', '.join(sorted(_GRAMMARS))}"
        )
    with _grammar_lock:
        cached = _grammar_cache.get(language_name)
        if cached is None:
            grammar_name, query_names = _GRAMMARS[language_name]
            language = tree_sitter.Language(_grammar_pointer(grammar_name))
            queries = resources.files("ipuaro.index").joinpath("queries")
            source = "\n".join(
                queries.joinpath(f"{name}.scm").read_text("utf-8") for name in query_names
            )
            cached = Grammar(language, tree_sitter.Query(language, source))
            _grammar_cache[language_name] = cached
    return cached


def parser(language_name: str) -> tree_sitter.Parser:
    """This thread's parser for the language (a Parser must not be shared between threads)."""
    parsers: dict[str, tree_sitter.Parser] | None = getattr(_thread_parsers, "parsers", None)
    if parsers is None:
        parsers = {}
        _thread_parsers.parsers = parsers
    found = parsers.get(language_name)
    if found is None:
        found = tree_sitter.Parser(grammar(language_name).language)
        parsers[language_name] = found
    return found


def _grammar_pointer(grammar_name: str) -> object:
    # Grammar wheels are imported here, on first use, so importing ipuaro loads no grammar.
    if grammar_name in ("typescript", "tsx"):
        import tree_sitter_typescript

        if grammar_name == "tsx":
            return tree_sitter_typescript.language_tsx()
        return tree_sitter_typescript.language_typescript()
    if grammar_name == "javascript":
        import tree_sitter_javascript

        return tree_sitter_javascript.language()
    if grammar_name == "python":
        import tree_sitter_python

        return tree_sitter_python.language()
    if grammar_name == "json":
        import tree_sitter_json

        return tree_sitter_json.language()
    import tree_sitter_yaml

    return tree_sitter_yaml.language()


def captures(grammar_: Grammar, node: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """Run the grammar's query over ``node``: capture name -> nodes in document order.

    The one place that knows the tree-sitter query API across versions: 0.25+ runs queries
    through ``QueryCursor``; 0.23/0.24 had ``Query.captures`` returning the same dict.
    """
    cursor_type = getattr(tree_sitter, "QueryCursor", None)
    if cursor_type is not None:
        result: dict[str, list[tree_sitter.Node]] = cursor_type(grammar_.query).captures(node)
        return result
    legacy: dict[str, list[tree_sitter.Node]] = grammar_.query.captures(node)  # type: ignore[attr-defined]
    return legacy
