"""Huge files: above project.maxParseBytes a file is stored and searchable as text, not parsed;
no line of any tool's output is longer than MAX_OUTPUT_LINE_CHARS, and the cut says how to read
on (issue 10 item 6). Sizes here are small; bench/hugefile_bench.py measures 12 MB / 10 MB."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ipuaro.config.schema import Config
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.tools.limits import MAX_OUTPUT_LINE_CHARS, OUTPUT_LINE_SLACK, cap_output_lines

from .conftest import Project

NOTE_ROOM = OUTPUT_LINE_SLACK
"""A line number and the cut note, beyond the kept characters."""


def test_a_file_above_the_parse_limit_is_stored_unparsed(project: Project) -> None:
    big = "".join(f"def generated_{i}():\n    return {i}\n\n" for i in range(200))
    (project.root / "generated.py").write_text(big)
    (project.root / "small_one.py").write_text("def small_one():\n    return 1\n")
    config = Config.model_validate({"project": {"maxParseBytes": 2000}})
    summary = Indexer(project.root, config, project.store).index()
    assert summary.too_large_to_parse == ["generated.py"]
    assert summary.to_json()["tooLargeToParse"] == ["generated.py"]

    assert project.store.get_ast("generated.py") is None
    assert project.store.find_definitions("generated_7") == []
    assert [d.path for d in project.store.find_definitions("small_one")] == ["small_one.py"]


async def test_unparsed_big_files_answer_grep_and_get_lines(project: Project) -> None:
    big = "".join(f"def generated_{i}():\n    return {i}\n\n" for i in range(200))
    (project.root / "generated.py").write_text(big)
    config = Config.model_validate({"project": {"maxParseBytes": 2000}})
    Indexer(project.root, config, project.store).index()
    grep = await project.ok("grep_search", query="def generated_7(")
    assert "generated.py:22" in (grep.data or "")
    lines = await project.ok("get_lines", path="generated.py", start=22, end=23)
    assert "def generated_7():" in (lines.data or "")
    definition = await project.ok("find_definition", symbol="generated_7")
    assert project.data(definition)["definitions"] == []


async def test_get_lines_caps_a_minified_line_and_says_how_to_read_on(project: Project) -> None:
    line = "".join(f"function f{i}(a){{return a+{i}}};" for i in range(3000))  # ~80K chars
    (project.root / "bundle.js").write_text(line + "\n")
    project.indexer.update_paths([project.root / "bundle.js"], [])
    first = await project.ok("get_lines", path="bundle.js")
    text = first.data or ""
    assert max(len(shown) for shown in text.split("\n")) <= MAX_OUTPUT_LINE_CHARS + NOTE_ROOM
    more = f"{len(line) - MAX_OUTPUT_LINE_CHARS:,} more characters on this line"
    follow = '{"path": "bundle.js", "start": 1, "end": 1, "column": 2001}'
    assert more in text and follow in text

    pieces = []
    column = 1
    while True:  # a model following the notes reads the whole line, nothing lost or repeated
        result = await project.ok("get_lines", path="bundle.js", start=1, end=1, column=column)
        body = (result.data or "").split("\n", 1)[1].split("| ", 1)[1]
        kept, _, note = body.partition(" … [")
        pieces.append(kept)
        if not note:
            break
        column = json.loads(note.split("get_lines ", 1)[1].rsplit(" reads on]", 1)[0])["column"]
    assert "".join(pieces) == line


async def test_every_tool_output_is_line_capped(project: Project) -> None:
    long_todo = "x" * 50_000
    (project.root / "notes.py").write_text(f"# TODO {long_todo}\nVALUE = '{long_todo}'\n")
    project.indexer.update_paths([project.root / "notes.py"], [])
    for tool, arguments in [
        ("get_todos", {}),
        ("grep_search", {"query": "VALUE"}),
        ("get_lines", {"path": "notes.py"}),
        ("get_structure", {}),
        ("git_diff", {}),
    ]:
        result = await project.call(tool, **arguments)
        text = (result.data if result.success else result.error) or ""
        longest = max(len(line) for line in text.split("\n"))
        assert longest <= MAX_OUTPUT_LINE_CHARS + NOTE_ROOM, tool


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=5000)))
def test_cap_output_lines_keeps_heads_and_bounds_every_line(lines: list[str]) -> None:
    text = "\n".join(lines)
    capped = cap_output_lines(text).split("\n")
    assert len(capped) == len(text.split("\n"))
    for original, shown in zip(text.split("\n"), capped, strict=True):
        if len(original) <= MAX_OUTPUT_LINE_CHARS + OUTPUT_LINE_SLACK:
            assert shown == original
        else:
            assert shown.startswith(original[:MAX_OUTPUT_LINE_CHARS])
            assert len(shown) <= MAX_OUTPUT_LINE_CHARS + NOTE_ROOM
            assert f"{len(original) - MAX_OUTPUT_LINE_CHARS:,} more characters" in shown


@pytest.mark.parametrize("limit", [0, 2000])
def test_the_limit_is_a_config_key(limit: int) -> None:
    assert Config.model_validate({"project": {"maxParseBytes": limit}}).project.max_parse_bytes == (
        limit
    )


async def test_a_file_above_the_store_limit_is_metadata_only_and_says_how_to_read_it(
    project: Project,
) -> None:
    (project.root / "app.log").write_text("request served\n" * 1000)
    config = Config.model_validate({"project": {"maxFileBytes": 10_000}})
    summary = Indexer(project.root, config, project.store).index()
    assert summary.too_large_to_store == ["app.log"]
    stored = project.store.get_file("app.log")
    assert stored is not None and stored.kind == "binary" and stored.size == 15_000
    refused = await project.call("get_lines", path="app.log")
    assert not refused.success and "above project.maxFileBytes" in (refused.error or "")
    assert "sed -n '1,40p' app.log" in (refused.error or "")
    again = Indexer(project.root, config, project.store).index()
    assert again.unchanged >= 1 and again.parsed == 0  # the metadata hash is stable
