"""Auto-context: what the app adds to a plan request before the first model call.

- A Python traceback (``File "x.py", line 12``) or a Node/TypeScript stack (``at f
  (src/x.ts:12:5)``) in the request → ±``traceback_lines`` lines around each frame inside the
  project (frames in ``site-packages``, ``node_modules`` or outside the root are skipped; frames
  of one file are merged into one range when they overlap).
- ``ImportError`` / ``ModuleNotFoundError`` / ``Cannot find module`` → the environment and the
  manifests (``pyproject.toml``, ``requirements*.txt``, ``package.json`` …; lock files by name).
- "test X fails" (or a pytest id ``tests/test_a.py::test_b``) → the test file and the project
  modules it imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.planning.diet import PRIORITY_AUTO_FILE, PRIORITY_ENV, ContextBlock
from ipuaro.planning.environment import describe_environment, manifests

if TYPE_CHECKING:
    from ipuaro.planning.context import ContextSource

_PY_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_NODE_FRAME = re.compile(
    r"(?:\(|\bat\s+)((?:file://)?[^\s()'\"]+?\.(?:[cm]?[jt]sx?|vue|svelte)):(\d+)(?::\d+)?\)?"
)
_IMPORT_ERROR = re.compile(
    r"\b(?:ImportError|ModuleNotFoundError|Cannot find module|ERR_MODULE_NOT_FOUND|"
    r"No module named)\b",
    re.IGNORECASE,
)
_PYTEST_ID = re.compile(r"([\w./-]+\.py)::([\w\[\]:.-]+)")
_TEST_FAILS = re.compile(
    r"\btests?\s+[`'\"]?([\w./:\[\]-]+?)[`'\"]?\s+"
    r"(?:fails|failed|is failing|keeps failing|breaks|is broken|is red|падает|упал|не проходит)",
    re.IGNORECASE,
)
_SKIPPED_PARTS = ("site-packages", "dist-packages", "node_modules", "/.venv/", "/venv/")
MAX_FRAMES = 8
MAX_TEST_MODULES = 2


@dataclass
class AutoContext:
    blocks: list[ContextBlock] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What was added and why, for the user and the trace."""


@dataclass(frozen=True)
class Frame:
    path: str
    line: int


def traceback_frames(text: str, root: Path, source: ContextSource) -> list[Frame]:
    """Frames inside the project, in the order they appear (duplicates dropped)."""
    raw = [(m.group(1), int(m.group(2))) for m in _PY_FRAME.finditer(text)]
    raw += [(m.group(1), int(m.group(2))) for m in _NODE_FRAME.finditer(text)]
    frames: list[Frame] = []
    for path, line in raw:
        if path.startswith("file://"):
            path = path[len("file://") :]
        if any(part in path for part in _SKIPPED_PARTS) or path.startswith("<"):
            continue
        rel = source.paths.inside(Path(path)) if Path(path).is_absolute() else path
        if rel is None or rel == "." or source.file_text(rel) is None:
            continue
        frame = Frame(rel, line)
        if frame not in frames:
            frames.append(frame)
    return frames[:MAX_FRAMES]


def _ranges(frames: list[Frame], around: int) -> dict[str, list[tuple[int, int]]]:
    by_file: dict[str, list[tuple[int, int]]] = {}
    for frame in frames:
        spans = by_file.setdefault(frame.path, [])
        start, end = max(1, frame.line - around), frame.line + around
        for index, (s, e) in enumerate(spans):
            if start <= e + 1 and end >= s - 1:
                spans[index] = (min(s, start), max(e, end))
                break
        else:
            spans.append((start, end))
    return by_file


def gather(request: str, source: ContextSource, traceback_lines: int) -> AutoContext:
    found = AutoContext()
    root = source.root
    frames = traceback_frames(request, root, source)
    for path, spans in _ranges(frames, traceback_lines).items():
        for start, end in spans:
            block = source.read_file(path, start, end, PRIORITY_AUTO_FILE)
            found.blocks.append(block)
            found.notes.append(f"traceback frame: {block.title}")
    if _IMPORT_ERROR.search(request):
        env = ContextBlock("env", "ENV", describe_environment(root), PRIORITY_ENV)
        found.blocks.append(env)
        found.notes.append("import error: the environment")
        for name in manifests(root):
            found.blocks.append(source.read_file(name, None, None, PRIORITY_ENV))
            found.notes.append(f"import error: manifest {name}")
    for test_file in _failing_tests(request, source):
        found.blocks.append(source.read_file(test_file, None, None, PRIORITY_AUTO_FILE))
        found.notes.append(f"failing test: {test_file}")
        for module in _imported_modules(test_file, source):
            found.blocks.append(source.read_file(module, None, None, PRIORITY_AUTO_FILE))
            found.notes.append(f"module the test imports: {module}")
    return found


def _failing_tests(request: str, source: ContextSource) -> list[str]:
    """Test files named by "test X fails" or a pytest id, as project paths."""
    names = [m.group(1) for m in _PYTEST_ID.finditer(request)]
    names += [m.group(1) for m in _TEST_FAILS.finditer(request)]
    files: list[str] = []
    known = source.store.file_hashes()
    for name in names:
        path = name.split("::", 1)[0]
        candidates: list[str] = []
        if path in known:
            candidates.append(path)
        else:
            test = name.split("::")[-1].split("[", 1)[0]
            candidates += [
                d.path for d in source.store.find_definitions(test) if _looks_like_test(d.path)
            ]
            stem = Path(path).stem
            candidates += [
                p
                for p in known
                if _looks_like_test(p)
                and Path(p).name.split(".")[0] in (stem, f"test_{stem}", f"{stem}_test")
            ]
        for candidate in candidates[:1]:
            if candidate not in files:
                files.append(candidate)
    return files


def _looks_like_test(path: str) -> bool:
    name = Path(path).name
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or ".test." in name
        or ".spec." in name
        or "/tests/" in f"/{path}"
        or "/__tests__/" in f"/{path}"
    )


def _imported_modules(test_file: str, source: ContextSource) -> list[str]:
    meta = source.store.get_meta(test_file)
    if meta is None:
        return []
    modules = [d for d in meta.dependencies if not _looks_like_test(d)]
    return modules[:MAX_TEST_MODULES]
