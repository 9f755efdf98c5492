"""Which grammar reads which file, and the lazily built tree-sitter objects for each grammar.

Languages and compiled queries are immutable and shared by the whole process; parsers hold
per-parse state, so each thread gets its own. Everything is built on first use: importing this
module loads no grammar. Indexing runs in a process pool, where each worker fills its own caches.
"""

from __future__ import annotations

import ctypes
import importlib
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Final

import tree_sitter


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """One row of the language table: which wheel gives the grammar and which queries read it."""

    module: str
    """The grammar wheel's module, imported on first use."""
    function: str
    """The module's function returning the language pointer."""
    package: str
    """The PyPI package that ships the module (for ``ipuaro doctor``'s fix)."""
    queries: tuple[str, ...]
    """``queries/<name>.scm`` files joined into the language's one query."""
    extensions: tuple[str, ...]
    reader: str = "tags"
    """``typescript``/``python``/``json``/``yaml`` have rich extractors; ``tags`` languages are
    read from their query alone (``_tags``): definitions, imports, references, calls, TODOs."""


def _tags(
    name: str,
    package: str,
    *extensions: str,
    function: str = "language",
    queries: tuple[str, ...] = (),
) -> LanguageSpec:
    module = package.replace("-", "_")
    return LanguageSpec(module, function, package, queries or (name,), extensions)


PACK: Final = "tree-sitter-language-pack"
"""Grammars with no well-kept wheel of their own come from this pack, pinned to 0.13.0 in
pyproject: its last version with every grammar inside the wheel (1.x downloads them at run
time, which must never happen). Each row imports one grammar's binding module from it."""


def _pack(name: str, *extensions: str) -> LanguageSpec:
    return LanguageSpec(
        f"tree_sitter_language_pack.bindings.{name}", "language", PACK, (name,), extensions
    )


# Language name -> its row. JSX is parsed by the JavaScript grammar, which reads JSX; the plain
# TypeScript grammar has no JSX nodes. The tags languages are the ones aider maps with wheels
# from the tree-sitter organisation on PyPI (never a grammar downloaded at run time).
LANGUAGES: Final[dict[str, LanguageSpec]] = {
    "typescript": LanguageSpec(
        "tree_sitter_typescript",
        "language_typescript",
        "tree-sitter-typescript",
        ("typescript",),
        (".ts", ".mts", ".cts"),
        "typescript",
    ),
    "tsx": LanguageSpec(
        "tree_sitter_typescript",
        "language_tsx",
        "tree-sitter-typescript",
        ("typescript", "jsx"),
        (".tsx",),
        "typescript",
    ),
    "javascript": LanguageSpec(
        "tree_sitter_javascript",
        "language",
        "tree-sitter-javascript",
        ("javascript", "jsx"),
        (".js", ".mjs", ".cjs"),
        "typescript",
    ),
    "jsx": LanguageSpec(
        "tree_sitter_javascript",
        "language",
        "tree-sitter-javascript",
        ("javascript", "jsx"),
        (".jsx",),
        "typescript",
    ),
    "python": LanguageSpec(
        "tree_sitter_python",
        "language",
        "tree-sitter-python",
        ("python",),
        (".py", ".pyi"),
        "python",
    ),
    "json": LanguageSpec(
        "tree_sitter_json", "language", "tree-sitter-json", ("json",), (".json",), "json"
    ),
    "yaml": LanguageSpec(
        "tree_sitter_yaml",
        "language",
        "tree-sitter-yaml",
        ("yaml",),
        (".yml", ".yaml"),
        "yaml",
    ),
    "go": _tags("go", "tree-sitter-go", ".go"),
    "rust": _tags("rust", "tree-sitter-rust", ".rs"),
    "java": _tags("java", "tree-sitter-java", ".java"),
    "c": _tags("c", "tree-sitter-c", ".c", ".h"),
    "cpp": _tags(
        "cpp", "tree-sitter-cpp", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++"
    ),
    "c_sharp": _tags("c_sharp", "tree-sitter-c-sharp", ".cs"),
    "ruby": _tags("ruby", "tree-sitter-ruby", ".rb", ".rake", ".gemspec"),
    "php": _tags("php", "tree-sitter-php", ".php", function="language_php"),
    "kotlin": _tags("kotlin", "tree-sitter-kotlin", ".kt", ".kts"),
    "swift": _tags("swift", "tree-sitter-swift", ".swift"),
    "scala": _tags("scala", "tree-sitter-scala", ".scala", ".sc"),
    "lua": _tags("lua", "tree-sitter-lua", ".lua"),
    "bash": _tags("bash", "tree-sitter-bash", ".sh", ".bash"),
    "elixir": _tags("elixir", "tree-sitter-elixir", ".ex", ".exs"),
    "haskell": _tags("haskell", "tree-sitter-haskell", ".hs"),
    "julia": _tags("julia", "tree-sitter-julia", ".jl"),
    "ocaml": _tags("ocaml", "tree-sitter-ocaml", ".ml", function="language_ocaml"),
    "ocaml_interface": _tags(
        "ocaml_interface", "tree-sitter-ocaml", ".mli", function="language_ocaml_interface"
    ),
    "zig": _tags("zig", "tree-sitter-zig", ".zig"),
    "hcl": _tags("hcl", "tree-sitter-hcl", ".tf", ".hcl", ".tfvars"),
    "solidity": _tags("solidity", "tree-sitter-solidity", ".sol"),
    "commonlisp": _tags("commonlisp", "tree-sitter-commonlisp", ".lisp", ".lsp", ".asd"),
    "fortran": _tags("fortran", "tree-sitter-fortran", ".f90", ".f95", ".f03", ".f08"),
    "arduino": _tags("arduino", "tree-sitter-arduino", ".ino", queries=("cpp",)),
    "matlab": _tags("matlab", "tree-sitter-matlab", ".m"),
    "dart": _pack("dart", ".dart"),
    "r": _pack("r", ".r"),
    "clojure": _pack("clojure", ".clj", ".cljs", ".cljc"),
    "elm": _pack("elm", ".elm"),
    "d": _pack("d", ".d", ".di"),
    "racket": _pack("racket", ".rkt"),
    "elisp": _pack("elisp", ".el"),
    "gleam": _pack("gleam", ".gleam"),
    "pony": _pack("pony", ".pony"),
    # Data-like: their named entries are `const` definitions and the file's keys.
    "properties": _pack("properties", ".properties"),
    "udev": _pack("udev", ".rules"),
    "chatito": _pack("chatito", ".chatito"),
}

_EXTENSIONS: Final[dict[str, str]] = {
    extension: name for name, spec in LANGUAGES.items() for extension in spec.extensions
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
    spec = LANGUAGES.get(language_name)
    if spec is None:
        raise ValueError(
            f"no parser for language {language_name!r}; known: {', '.join(sorted(LANGUAGES))}"
        )
    with _grammar_lock:
        cached = _grammar_cache.get(language_name)
        if cached is None:
            language = load_language(spec)
            query_names = spec.queries
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


def load_language(spec: LanguageSpec) -> tree_sitter.Language:
    """The grammar of ``spec``; its wheel is imported here, on first use, so importing ipuaro
    loads no grammar. Raises ImportError when the wheel is missing."""
    module = importlib.import_module(spec.module)
    pointer = getattr(module, spec.function)()
    if isinstance(pointer, int):
        # Wheels built with older bindings (solidity, commonlisp) return the bare address,
        # which tree-sitter 0.25+ accepts only with a DeprecationWarning: wrap it the way
        # newer bindings do.
        pointer = _capsule(pointer)
    return tree_sitter.Language(pointer)


def _capsule(address: int) -> object:
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
    capsule: object = new(address, b"tree_sitter.Language", None)
    return capsule


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
