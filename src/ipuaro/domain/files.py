"""What the index knows about one file: content, syntax summary and metrics (concept types)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ipuaro.domain.base import DomainModel

ImportKind = Literal["internal", "external", "builtin"]
ExportKind = Literal[
    "function", "class", "interface", "type", "const", "enum", "namespace", "default"
]
Visibility = Literal["public", "private", "protected"]
FileKind = Literal["text", "binary", "symlink"]


class FileData(DomainModel):
    """A file's content as lines (no line terminators) plus identity for change detection."""

    lines: list[str]
    hash: str
    size: int
    last_modified: float
    kind: FileKind = "text"
    """``binary`` and ``symlink`` files keep metadata only (lines is empty)."""
    target: str | None = None
    """For symlinks: the link target as written (never followed out of the project)."""
    eol: Literal["\n", "\r\n", "\r"] = "\n"
    """Line terminator style of the file, kept on every write."""
    final_newline: bool = True
    """Whether the file ended with a line terminator."""


class ImportInfo(DomainModel):
    name: str
    from_: str = Field(alias="from")
    line: int
    type: ImportKind
    is_default: bool = False
    resolved: str | None = None
    """Project-relative path of the file this import resolves to (internal imports)."""
    unresolved: bool = False
    """True for an internal-looking import that matched no file."""
    imported: str | None = None
    """Python ``from M import x as y``: ``x``, the name before the alias (``name`` is the local
    binding ``y``); ``import M [as y]``: empty, the module itself. None for other languages."""


class ExportInfo(DomainModel):
    name: str
    type: ExportKind
    line: int


class FunctionInfo(DomainModel):
    name: str
    line_start: int
    line_end: int
    params: list[str] = Field(default_factory=list)
    defaults: dict[str, str] = Field(default_factory=dict)
    """Default values as written, keyed by the entry of ``params`` (``{"name": "None"}``)."""
    return_type: str | None = None
    is_async: bool = False
    is_exported: bool = False
    decorators: list[str] = Field(default_factory=list)


class MethodInfo(DomainModel):
    name: str
    line_start: int
    line_end: int
    params: list[str] = Field(default_factory=list)
    defaults: dict[str, str] = Field(default_factory=dict)
    """Default values as written, keyed by the entry of ``params``."""
    return_type: str | None = None
    visibility: Visibility = "public"
    is_static: bool = False
    is_async: bool = False
    is_abstract: bool = False
    kind: Literal["method", "getter", "setter", "constructor"] = "method"
    decorators: list[str] = Field(default_factory=list)


class PropertyInfo(DomainModel):
    name: str
    line: int
    type: str | None = None
    visibility: Visibility = "public"
    is_static: bool = False
    is_readonly: bool = False


class ClassInfo(DomainModel):
    name: str
    line_start: int
    line_end: int
    methods: list[MethodInfo] = Field(default_factory=list)
    properties: list[PropertyInfo] = Field(default_factory=list)
    extends: str | None = None
    implements: list[str] = Field(default_factory=list)
    is_exported: bool = False
    is_abstract: bool = False
    decorators: list[str] = Field(default_factory=list)


class TypeInfo(DomainModel):
    """Interfaces, type aliases, enums and namespaces (TypeScript)."""

    name: str
    kind: Literal["interface", "type", "enum", "namespace"]
    line_start: int
    line_end: int
    is_exported: bool = False


class TodoInfo(DomainModel):
    line: int
    tag: Literal["TODO", "FIXME", "HACK", "XXX"]
    text: str


class FileAST(DomainModel):
    imports: list[ImportInfo] = Field(default_factory=list)
    exports: list[ExportInfo] = Field(default_factory=list)
    functions: list[FunctionInfo] = Field(default_factory=list)
    classes: list[ClassInfo] = Field(default_factory=list)
    types: list[TypeInfo] = Field(default_factory=list)
    todos: list[TodoInfo] = Field(default_factory=list)
    keys: list[str] = Field(default_factory=list)
    """JSON/YAML: top-level keys (the file's structure); .properties keys, udev labels and
    ENV keys, Chatito intents/slots/aliases."""
    language: str | None = None
    parse_error: bool = False


class ComplexityScore(DomainModel):
    loc: int
    nesting: int
    imports: int
    score: float


class FileMeta(DomainModel):
    complexity: ComplexityScore
    dependencies: list[str] = Field(default_factory=list)
    dependents: list[str] = Field(default_factory=list)
    is_hub: bool = False
    is_entry_point: bool = False
    file_type: str = "text"
    """Language or kind (``typescript``, ``python``, ``json``, ``binary``…)."""
