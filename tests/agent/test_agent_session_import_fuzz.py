"""Fuzzed session imports (hypothesis) into a real SQLite store: a good export mutated line by
line — values swapped for any JSON, lines dropped or repeated, lone surrogate escapes, nesting
as deep as the parser allows, numbers out of range, raw garbage. Every import either stores a
session that then loads and exports again, or is refused with ``SessionsUnavailable`` naming a
line and leaves the store exactly as it was; nothing else is raised, memory stays bounded."""

from __future__ import annotations

import json
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipuaro.core.errors import SessionsUnavailable
from ipuaro.core.sessions import SessionArchive
from ipuaro.store.sqlite import SqliteStore

EXAMPLES = int(os.environ.get("IPUARO_FUZZ_EXAMPLES", "200"))
MEMORY_BOUND = 64 * 1024 * 1024

GOOD: list[dict[str, Any]] = [
    {"type": "header", "version": 1, "id": "fuzz01", "timestamp": "2026-01-01T00:00:00Z"},
    {"type": "model_change", "model": "qwen", "timestamp": 1.0},
    {"type": "message", "role": "user", "content": "hi", "timestamp": 2.0},
    {
        "type": "message",
        "role": "assistant",
        "content": "",
        "toolCalls": [{"id": "c1", "name": "get_lines", "parameters": {"path": "a.py"}}],
        "timestamp": 3.0,
    },
    {"type": "compaction", "summary": "s", "token_before": 10, "token_after": 2, "timestamp": 4},
    {"type": "stats", "totalTokens": 5},
    {
        "type": "undo",
        "stack": "undo",
        "entry": {
            "id": "u1",
            "timestamp": 5.0,
            "filePath": "a.py",
            "previousContent": ["a\n"],
            "newContent": ["b\n"],
            "description": "edit",
        },
    },
    {"type": "input", "text": "hi"},
]

texts = st.text(max_size=20) | st.sampled_from(["\ud800", "x\udfffy", "9" * 5000, ""])
numbers = st.integers(-(2**80), 2**80) | st.floats(allow_nan=False) | st.just(1e308)
values = st.recursive(
    st.none() | st.booleans() | numbers | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=12,
)


@st.composite
def mutated_exports(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for item in GOOD:
        choice = draw(st.integers(0, 9))
        if choice == 0:
            continue  # dropped
        entry = dict(item)
        if choice in (1, 2) and len(entry) > 1:  # one field replaced by anything
            key = draw(st.sampled_from(sorted(k for k in entry if k != "type")))
            entry[key] = draw(values)
        elif choice == 3:
            entry[draw(texts)] = draw(values)  # an extra field
        text = json.dumps(entry)  # ensure_ascii: surrogates go as escapes
        if choice == 4:
            text = text[: draw(st.integers(0, len(text)))]  # cut short
        lines.append(text)
        if choice == 5:
            lines.append(text)  # repeated
    extra = draw(
        st.sampled_from(
            [
                "",
                "[" * 50_000,
                '{"type": "stats", "x": ' + "[" * 100 + "]" * 100 + "}",
                '{"type": "stats", "totalTokens": NaN}',
                '{"type": "message", "role": "user", "content": "x", "timestamp": 1e999}',
                '{"type": "zzz", "future": true}',
            ]
        )
    )
    lines.insert(draw(st.integers(0, len(lines))), extra)
    return "\n".join(lines)


raw = st.binary(max_size=200).map(lambda data: data.decode("utf-8", "replace"))


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[SessionArchive]:
    store = SqliteStore(tmp_path / "store.db", "tests-fuzz")
    yield SessionArchive(store, tmp_path)
    store.close()


def test_fuzzed_imports_store_whole_sessions_or_nothing(archive: SessionArchive) -> None:
    @settings(
        max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    @given(mutated_exports() | raw)
    def check(text: str) -> None:
        tracemalloc.start()
        try:
            try:
                report = archive.import_text(text, new_id=True, source="fuzz.jsonl")
            except SessionsUnavailable as error:
                assert str(error).startswith("fuzz.jsonl"), error
                assert archive.ids() == []
                return
            finally:
                _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < MEMORY_BOUND, f"peak {peak:,} bytes"
        try:
            stored = archive.load(report.session_id)
            assert len(stored.history) == report.messages
            lines = archive.export(report.session_id)
            assert json.loads(lines[0])["type"] == "header"
        finally:
            archive.delete(report.session_id)
        assert archive.ids() == []

    check()
