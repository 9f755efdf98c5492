"""Typed domain objects shared by every layer, serialised with the concept's camelCase names.

Names are re-exported lazily: ``ipuaro.domain.repofiles`` (read by the config loader on every
start) and the other plain modules load without pydantic and without building every model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ipuaro._lazy import lazy_exports

if TYPE_CHECKING:
    from ipuaro.domain.base import DomainModel
    from ipuaro.domain.files import (
        ClassInfo,
        ComplexityScore,
        ExportInfo,
        FileAST,
        FileData,
        FileMeta,
        FunctionInfo,
        ImportInfo,
        MethodInfo,
        PropertyInfo,
        TodoInfo,
        TypeInfo,
    )
    from ipuaro.domain.indexes import CallEdge, FileIndexes, Reference, SymbolDef
    from ipuaro.domain.session import (
        ChatMessage,
        ContextState,
        MessageStats,
        Session,
        SessionStats,
        ToolCall,
        ToolResult,
        UndoEntry,
    )

__all__ = [
    "CallEdge",
    "ChatMessage",
    "ClassInfo",
    "ComplexityScore",
    "ContextState",
    "DomainModel",
    "ExportInfo",
    "FileAST",
    "FileData",
    "FileIndexes",
    "FileMeta",
    "FunctionInfo",
    "ImportInfo",
    "MessageStats",
    "MethodInfo",
    "PropertyInfo",
    "Reference",
    "Session",
    "SessionStats",
    "SymbolDef",
    "TodoInfo",
    "ToolCall",
    "ToolResult",
    "TypeInfo",
    "UndoEntry",
]

_MODULES = {
    "DomainModel": "base",
    **dict.fromkeys(
        (
            "ClassInfo",
            "ComplexityScore",
            "ExportInfo",
            "FileAST",
            "FileData",
            "FileMeta",
            "FunctionInfo",
            "ImportInfo",
            "MethodInfo",
            "PropertyInfo",
            "TodoInfo",
            "TypeInfo",
        ),
        "files",
    ),
    **dict.fromkeys(("CallEdge", "FileIndexes", "Reference", "SymbolDef"), "indexes"),
    **dict.fromkeys(
        (
            "ChatMessage",
            "ContextState",
            "MessageStats",
            "Session",
            "SessionStats",
            "ToolCall",
            "ToolResult",
            "UndoEntry",
        ),
        "session",
    ),
}


__getattr__ = lazy_exports(__name__, _MODULES)
