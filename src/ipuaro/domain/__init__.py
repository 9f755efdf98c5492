"""Typed domain objects shared by every layer, serialised with the concept's camelCase names."""

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
