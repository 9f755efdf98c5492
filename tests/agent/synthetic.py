"""Small synthetic projects written straight into a real SqliteStore (no parser involved),
for tests of the summary and ranking that need exact control over hubs, sizes and names."""

from __future__ import annotations

from pathlib import Path

from ipuaro.domain import (
    ClassInfo,
    ComplexityScore,
    FileAST,
    FileData,
    FileMeta,
    FunctionInfo,
    ImportInfo,
    MethodInfo,
)
from ipuaro.store.protocol import IndexBatch
from ipuaro.store.sqlite import SqliteStore


def file_data(path: str, version: str = "1") -> FileData:
    return FileData(lines=[f"# {path}"], hash=f"{path}@{version}", size=10, last_modified=1.0)


def python_ast(module: str, functions: int = 2, imports: tuple[str, ...] = ()) -> FileAST:
    return FileAST(
        imports=[
            ImportInfo.model_validate({"name": name, "from": name, "line": 1, "type": "external"})
            for name in imports
        ],
        functions=[
            FunctionInfo(
                name=f"{module}_fn{i}",
                line_start=10 * i + 1,
                line_end=10 * i + 8,
                params=["self", "value: int", "flag: bool = False"],
                return_type="int",
            )
            for i in range(functions)
        ],
        classes=[
            ClassInfo(
                name=f"{module.title()}Service",
                line_start=100,
                line_end=180,
                extends="Base",
                methods=[
                    MethodInfo(name="__init__", line_start=101, line_end=110, params=["self"]),
                    MethodInfo(
                        name="handle",
                        line_start=112,
                        line_end=150,
                        params=["self", "request"],
                        is_async=True,
                    ),
                ],
            )
        ],
        language="python",
    )


def meta(
    deps: list[str] | None = None,
    dependents: int = 0,
    hub: bool = False,
    entry: bool = False,
    loc: int = 50,
) -> FileMeta:
    return FileMeta(
        complexity=ComplexityScore(loc=loc, nesting=2, imports=1, score=loc / 10),
        dependencies=deps or [],
        dependents=[f"dep{i}.py" for i in range(dependents)],
        is_hub=hub,
        is_entry_point=entry,
        file_type="python",
    )


def project_store(tmp_path: Path, files: int, *, name: str = "tests-agent") -> SqliteStore:
    """``files`` modules spread over folders; ``core/hub.py`` is the hub, ``app/main.py`` the
    entry point, ``billing/invoice_total.py`` has a distinctive name for ranking tests."""
    store = SqliteStore(tmp_path / "store.db", name)
    batch = IndexBatch()
    paths = ["core/hub.py", "app/main.py", "billing/invoice_total.py"]
    paths += [f"pkg{i % 7}/sub{i % 3}/module_{i}.py" for i in range(max(0, files - 3))]
    for path in paths:
        module = Path(path).stem
        batch.files[path] = file_data(path)
        batch.asts[path] = python_ast(module, imports=("os", "json"))
        if path == "core/hub.py":
            batch.metas[path] = meta(dependents=12, hub=True)
        elif path == "app/main.py":
            batch.metas[path] = meta(deps=["core/hub.py"], entry=True)
        else:
            batch.metas[path] = meta(deps=["core/hub.py"])
    store.apply_batch(batch)
    return store
