"""``ipuaro sessions import`` of files that used to end in a traceback (or a half-stored
session): bytes that are not UTF-8, nesting too deep to parse, a lone surrogate escape, numbers
out of range, a store that fails half-way. Each is one clear error naming the line, and the
project's sessions are exactly what they were before (a real SQLite file through the real CLI)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from ipuaro.cli.main import build_cli
from ipuaro.store.naming import default_database

HEADER = {"type": "header", "version": 1, "id": "imported01", "timestamp": 1000.0}
MESSAGE = {"type": "message", "role": "user", "content": "hello", "timestamp": 1001.0}
UNDO = {
    "type": "undo",
    "stack": "undo",
    "entry": {
        "id": "u1",
        "timestamp": 1002.0,
        "filePath": "a.py",
        "previousContent": ["a\n"],
        "newContent": ["b\n"],
        "description": "edit",
    },
}


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(build_cli(), ["sessions", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def write_lines(path: Path, *lines: str | dict[str, object]) -> Path:
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def listed(project: Path) -> list[str]:
    code, out = invoke("list", "--project", str(project), "--json")
    assert code == 0, out
    return [row["id"] for row in json.loads(out)]


def test_a_good_file_imports(project: Path, tmp_path: Path) -> None:
    source = write_lines(tmp_path / "good.jsonl", HEADER, MESSAGE, UNDO)
    code, out = invoke("import", str(source), "--project", str(project))
    assert code == 0 and "imported session imported01" in out
    assert listed(project) == ["imported01"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"type": "header", "version": 1, "id": "x\xff\xfe"}\n', "is not UTF-8 text (line 1"),
        ("[" * 100_000, "line 2: nests lists or objects too deeply"),
        ('{"type": "stats", "x": ' + "[" * 60 + "]" * 60 + "}", "deeper than 48 levels"),
        (
            '{"type": "message", "role": "user", "content": "bad \\ud800", "timestamp": 1}',
            "line 2: content holds an unpaired UTF-16 surrogate",
        ),
        (
            '{"type": "message", "role": "user", "content": "x", "timestamp": 1e400}',
            "line 2: timestamp inf is out of range",
        ),
        (
            '{"type": "compaction", "summary": "s", "timestamp": 1, "token_before": "9'
            + "9" * 5000
            + '"}',
            "line 2 (compaction): a number is out of range",
        ),
        ('{"type": "stats", "tokensIn": NaN}', "line 2: not JSON"),
        ({**HEADER, "title": {"not": "text"}}, "line 1 (header): title"),
    ],
    ids=[
        "not-utf8",
        "deep-brackets",
        "too-deep",
        "surrogate",
        "infinite-time",
        "huge-number",
        "nan",
        "bad-header",
    ],
)
def test_a_bad_file_is_one_clear_error_and_nothing_is_imported(
    project: Path, tmp_path: Path, content: bytes | str | dict[str, object], expected: str
) -> None:
    source = tmp_path / "bad.jsonl"
    if isinstance(content, bytes):
        source.write_bytes(content)
    elif isinstance(content, dict):
        write_lines(source, content, MESSAGE)
    else:
        write_lines(source, HEADER, content, MESSAGE)
    code, out = invoke("import", str(source), "--project", str(project))
    assert code == 1, out
    assert expected in out, out
    assert "Traceback" not in out
    assert listed(project) == []


def test_a_store_failing_half_way_leaves_nothing_behind(project: Path, tmp_path: Path) -> None:
    source = write_lines(tmp_path / "good.jsonl", HEADER, MESSAGE, UNDO)
    invoke("list", "--project", str(project))  # creates the store
    with sqlite3.connect(default_database(project)) as conn:
        # The session row is written, then the undo stack fails: a real SQLite error.
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON undo BEGIN SELECT RAISE(ABORT, 'no room'); END"
        )
    code, out = invoke("import", str(source), "--project", str(project))
    assert code == 1 and "not imported" in out and "no room" in out, out
    assert listed(project) == []


def test_a_fifo_is_refused_instead_of_blocking(project: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "export.jsonl"
    os.mkfifo(fifo)  # nobody writes: reading it would block for ever
    code, out = invoke("import", str(fifo), "--project", str(project))
    assert code == 1 and "is not a regular file" in out
    assert listed(project) == []
