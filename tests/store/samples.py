"""Domain objects for the store tests: every field of every stored type set to a non-default."""

from __future__ import annotations

from ipuaro.domain import (
    CallEdge,
    ChatMessage,
    ClassInfo,
    ComplexityScore,
    ContextState,
    ExportInfo,
    FileAST,
    FileData,
    FileIndexes,
    FileMeta,
    FunctionInfo,
    ImportInfo,
    MessageStats,
    MethodInfo,
    PropertyInfo,
    Reference,
    Session,
    SessionStats,
    SymbolDef,
    TodoInfo,
    ToolCall,
    ToolResult,
    TypeInfo,
    UndoEntry,
)


def text_file(path: str, body: str = "x", lines: int = 3) -> FileData:
    content = [f"{body} {path} line {i} — ünïcode" for i in range(lines)]
    return FileData(
        lines=content,
        hash=f"hash-{path}-{body}",
        size=sum(len(line) + 1 for line in content),
        last_modified=1_705_312_200.5,
    )


def all_file_kinds() -> dict[str, FileData]:
    return {
        "src/crlf.ts": FileData(
            lines=["const a = 1;", "", "\tindented  "],
            hash="h-crlf",
            size=30,
            last_modified=1.25,
            eol="\r\n",
            final_newline=False,
        ),
        "assets/logo.png": FileData(
            lines=[], hash="h-bin", size=4096, last_modified=2.0, kind="binary"
        ),
        "link-to-src": FileData(
            lines=[], hash="h-link", size=3, last_modified=3.0, kind="symlink", target="src"
        ),
        "old/mac.txt": FileData(lines=["a", "b"], hash="h-cr", size=4, last_modified=4, eol="\r"),
        "docs/空 space.md": text_file("docs/空 space.md"),
    }


def full_ast() -> FileAST:
    return FileAST(
        imports=[
            ImportInfo(name="jwt", from_="jsonwebtoken", line=1, type="external", is_default=True),
            ImportInfo(
                name="User", from_="../models", line=2, type="internal", resolved="src/models.ts"
            ),
            ImportInfo(name="missing", from_="./nope", line=3, type="internal", unresolved=True),
            ImportInfo(name="fs", from_="node:fs", line=4, type="builtin"),
        ],
        exports=[
            ExportInfo(name="AuthManager", type="class", line=10),
            ExportInfo(name="refreshToken", type="function", line=55),
        ],
        functions=[
            FunctionInfo(
                name="refreshToken",
                line_start=55,
                line_end=70,
                params=["token", "options?"],
                return_type="Promise<string>",
                is_async=True,
                is_exported=True,
                decorators=["@traced"],
            )
        ],
        classes=[
            ClassInfo(
                name="AuthManager",
                line_start=10,
                line_end=52,
                methods=[
                    MethodInfo(
                        name="login",
                        line_start=15,
                        line_end=30,
                        params=["username", "password"],
                        return_type="boolean",
                        visibility="private",
                        is_static=True,
                        is_async=True,
                        kind="getter",
                        decorators=["@memo"],
                    )
                ],
                properties=[
                    PropertyInfo(
                        name="secret",
                        line=11,
                        type="string",
                        visibility="protected",
                        is_static=True,
                        is_readonly=True,
                    )
                ],
                extends="Base",
                implements=["Auth", "Disposable"],
                is_exported=True,
                is_abstract=True,
                decorators=["@injectable()"],
            )
        ],
        types=[
            TypeInfo(name="Token", kind="interface", line_start=5, line_end=8, is_exported=True)
        ],
        todos=[TodoInfo(line=60, tag="FIXME", text="expire old tokens")],
        keys=["compilerOptions", "include"],
        language="typescript",
        parse_error=True,
    )


def full_meta() -> FileMeta:
    return FileMeta(
        complexity=ComplexityScore(loc=120, nesting=4, imports=7, score=42.5),
        dependencies=["src/models.ts"],
        dependents=["src/app.ts", "src/cli.ts"],
        is_hub=True,
        is_entry_point=True,
        file_type="typescript",
    )


def file_indexes(path: str, names: list[str], refs_per_name: int = 2) -> FileIndexes:
    """Definitions of ``names`` in ``path``, references to each, and calls between them."""
    return FileIndexes(
        symbols=[
            SymbolDef(
                name=name,
                path=path,
                line=10 * i + 1,
                kind="method" if i % 2 else "function",
                line_end=10 * i + 5,
                container="Box" if i % 2 else None,
            )
            for i, name in enumerate(names)
        ],
        references=[
            Reference(name=name, path=path, line=10 * i + 2 + k, column=k + 1)
            for i, name in enumerate(names)
            for k in range(refs_per_name)
        ],
        calls=[
            CallEdge(
                path=path,
                caller=names[i - 1] if i else "<module>",
                callee=name,
                line=10 * i + 3,
                resolved=path if i % 2 else None,
            )
            for i, name in enumerate(names)
        ],
    )


def undo_entry(n: int, group: str | None = None) -> UndoEntry:
    return UndoEntry(
        id=f"u{n}",
        timestamp=1000.0 + n,
        file_path=f"src/f{n}.ts",
        previous_content=None if n % 3 == 0 else [f"old {n}"],
        new_content=None if n % 3 == 1 else [f"new {n}", ""],
        description=f"change {n}",
        group=group,
        previous_hash=f"p{n}",
        new_hash=f"n{n}",
    )


def full_session(session_id: str, project: str) -> Session:
    call = ToolCall(id="c1", name="get_lines", parameters={"path": "src/a.ts", "start": 1})
    return Session(
        id=session_id,
        project_name=project,
        created_at=1_700_000_000.0,
        last_activity_at=1_700_000_100.5,
        history=[
            ChatMessage(role="system", content="You are ipuaro.", timestamp=1.0),
            ChatMessage(role="user", content="Fix the login — пожалуйста", timestamp=2.0),
            ChatMessage(
                role="assistant",
                content="",
                timestamp=3.0,
                tool_calls=[call],
                stats=MessageStats(tokens=10, time_ms=250, tool_calls=1, tokens_in=7, tokens_out=3),
            ),
            ChatMessage(
                role="tool",
                content="1│import jwt",
                timestamp=4.0,
                tool_name="get_lines",
                tool_results=[
                    ToolResult(
                        call_id="c1",
                        success=True,
                        data={"lines": ["import jwt"], "nested": [1, 2.5, None, True]},
                        details={"diff": "@@ -1 +1 @@"},
                    ),
                    ToolResult(call_id="c2", success=False, error="no such file: src/b.ts"),
                ],
            ),
            ChatMessage(role="user", content="summary of old turns", timestamp=5.0, kind="summary"),
        ],
        context=ContextState(loaded_files=["src/a.ts"], tokens_used=1234, tokens_limit=32_000),
        undo_stack=[undo_entry(1, group="g"), undo_entry(2, group="g")],
        stats=SessionStats(
            total_tokens=99, total_time=1.5, tool_calls=3, edits_applied=2, edits_rejected=1
        ),
        input_history=["fix login", "/undo"],
        model="qwen2.5-coder:7b-instruct",
        title="login fix",
    )
