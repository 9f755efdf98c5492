"""The TUI's pure parts: diff computation and drawing, completion, history, command parsing,
formats, /eval's citation checks, the git branch."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from ipuaro.core.commands import CommandError, is_command, parse_command
from ipuaro.core.evaluation import (
    PathCitation,
    check_path,
    check_symbol,
    critique_prompt,
    extract_citations,
)
from ipuaro.domain import FileData, SymbolDef
from ipuaro.store.protocol import IndexBatch
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import FileChange
from ipuaro.tui.completion import complete, word_before
from ipuaro.tui.diff_render import DARK, changed_spans, compute_file_diff, render_file_diff
from ipuaro.tui.formatting import StatusFields, duration, session_age, stats_line, status_text
from ipuaro.tui.history import InputHistory
from ipuaro.tui.startup import git_branch


def draw(renderable: object, width: int = 60) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


# --- diff ------------------------------------------------------------------------------------


def test_diff_pairs_changed_lines_with_character_spans() -> None:
    old = "a\nb\nconst isValid = jwt.verify(token)\nc\n"
    new = "a\nb\nconst isValid = this.verifyToken(token)\nc\n"
    diff = compute_file_diff(FileChange("x.ts", old, new))
    kinds = [(line.kind, line.old_no, line.new_no) for line in diff.lines]
    assert kinds == [
        ("context", 1, 1),
        ("context", 2, 2),
        ("removed", 3, None),
        ("added", None, 3),
        ("context", 4, 4),
    ]
    removed, added = diff.lines[2], diff.lines[3]
    # Whole words where they differ, characters where a word grew: jwt → this, verify → verifyToken.
    assert [removed.text[s:e] for s, e in removed.spans] == ["jwt"]
    assert [added.text[s:e] for s, e in added.spans] == ["this", "Token"]
    assert diff.header == "x.ts (line 3, +1 -1)"


def test_unrelated_lines_are_not_paired() -> None:
    diff = compute_file_diff(FileChange("x.py", "alpha = 1\n", "completely different text\n"))
    assert all(not line.spans for line in diff.lines)


def test_diff_hunks_skip_unchanged_runs() -> None:
    old = "".join(f"line {n}\n" for n in range(1, 41))
    new = old.replace("line 5\n", "line five\n").replace("line 35\n", "line 35\nextra\n")
    diff = compute_file_diff(FileChange("big.txt", old, new))
    skips = [line.text for line in diff.lines if line.kind == "skip"]
    assert skips == ["1 unchanged line", "24 unchanged lines"]
    assert diff.header == "big.txt (lines 5-36, +2 -1)"


def test_created_and_deleted_files() -> None:
    created = compute_file_diff(FileChange("n.ts", None, "a\nb\n"))
    assert created.status == "created" and created.header == "n.ts (new file, 2 lines)"
    deleted = compute_file_diff(FileChange("d.ts", "a\n", None))
    assert deleted.status == "deleted" and deleted.header == "d.ts (deleted, 1 line)"


def test_changed_spans_of_identical_lines_are_empty() -> None:
    assert changed_spans("same", "same") == ((), ())


def test_drawing_wraps_long_lines_and_keeps_them_whole() -> None:
    long = "x = '" + "word " * 30 + "'"
    diff = compute_file_diff(FileChange("w.py", "x = 1\n", long + "\n"))
    wrapped = draw(render_file_diff(diff, wrap=True), width=60)
    assert "word word" in wrapped and len(wrapped.splitlines()) > 4
    assert wrapped.replace("\n", "").replace(" ", "").count("word") == 30
    cut = draw(render_file_diff(diff, wrap=False), width=60)
    assert "…" in cut


def test_drawing_colours_syntax_and_marks_changes() -> None:
    diff = compute_file_diff(
        FileChange("a.py", "def f():\n    return 1\n", "def f():\n    return 2\n")
    )
    rows = [line.split() for line in draw(render_file_diff(diff, syntax=False)).splitlines()]
    assert ["2", "-", "return", "1"] in rows and ["2", "+", "return", "2"] in rows
    segments = list(Console(width=80).render(render_file_diff(diff)))
    keyword = next(s for s in segments if s.text == "def")
    assert keyword.style is not None and keyword.style.color is not None  # syntax colour
    changed = next(s for s in segments if s.text == "2" and s.style and s.style.bgcolor)
    assert changed.style is not None
    assert changed.style.bgcolor is not None
    assert changed.style.bgcolor.name == DARK.added_span.removeprefix("on ")  # inline highlight


def test_diff_draws_tabs_as_spaces_with_spans_moved() -> None:
    diff = compute_file_diff(FileChange("t.go", "\tx := 1\n", "\tx := 2\n"))
    text = draw(render_file_diff(diff, syntax=False))
    assert "    x := 2" in text


# --- completion ------------------------------------------------------------------------------

PATHS = ["src/auth/login.ts", "src/auth/token.ts", "src/utils/format.py", "README.md"]


def test_completion_goes_one_folder_at_a_time() -> None:
    assert complete("src/a", PATHS).replacement == "src/auth/"
    both = complete("src/", PATHS)
    assert both.replacement == "src/" and both.candidates == ("src/auth/", "src/utils/")
    assert complete("src/auth/l", PATHS).replacement == "src/auth/login.ts"


def test_completion_by_file_or_folder_name() -> None:
    assert complete("format", PATHS).replacement == "src/utils/format.py"
    several = complete("auth", PATHS)
    assert several.replacement == "auth"
    assert several.candidates == ("src/auth/login.ts", "src/auth/token.ts")
    assert complete("nothing", PATHS).candidates == ()
    assert complete("", PATHS).replacement == ""


def test_word_before_cursor() -> None:
    assert word_before("look at @src/au", 15) == (9, "src/au")
    assert word_before("open (src", 9) == (6, "src")


# --- history ---------------------------------------------------------------------------------


def test_history_walks_back_and_returns_the_draft() -> None:
    history = InputHistory(["one", "two", "two", " "])
    assert history.entries == ["one", "two"]
    assert history.previous("draft") == "two"
    assert history.previous("two") == "one"
    assert history.previous("one") is None
    assert history.next() == "two"
    assert history.next() == "draft"
    assert history.next() is None


# --- commands --------------------------------------------------------------------------------


def test_parse_commands() -> None:
    assert parse_command("/sessions load abc") == parse_command("/SESSIONS  load abc")
    assert parse_command("/sessions load abc").args == ("load", "abc")
    assert parse_command("/auto-apply ON").args == ("on",)
    assert parse_command("/model qwen2.5-coder:14b").args == ("qwen2.5-coder:14b",)
    with pytest.raises(CommandError, match="unknown command /nope; the commands are: /help"):
        parse_command("/nope")
    with pytest.raises(CommandError, match=r"usage: /auto-apply \[on\|off\]"):
        parse_command("/auto-apply maybe")
    with pytest.raises(CommandError, match="usage: /help"):
        parse_command("/help me")
    with pytest.raises(CommandError, match="type a command"):
        parse_command("/")


def test_what_counts_as_a_command() -> None:
    assert is_command("/help") and is_command("  /status ")
    assert not is_command("//not a command") and not is_command("/usr/bin/env python")
    assert not is_command("help")


# --- formats ---------------------------------------------------------------------------------


def test_stats_line_and_durations() -> None:
    assert stats_line(3.24, 1247, 1) == "⏱ 3.2s │ 1,247 tokens │ 1 tool call"
    assert stats_line(0.0, 1, 2) == "⏱ 0.0s │ 1 token │ 2 tool calls"
    assert stats_line(1.0, 1234, 0, estimated=True) == "⏱ 1.0s │ ~1,234 tokens │ 0 tool calls"
    assert duration(65) == "1m 05s"
    assert [session_age(s) for s in (0, 47 * 60, 125 * 60, 3 * 86400)] == [
        "0m",
        "47m",
        "2h05m",
        "3d0h",
    ]


def test_status_text_has_every_indicator() -> None:
    fields = StatusFields(
        project="projects-myapp",
        branch="main",
        ctx_used=12,
        ctx_limit=100,
        age_s=47 * 60,
        state="thinking",
        auto_apply=True,
        plan=True,
    )
    assert status_text(fields) == (
        "[ipuaro] [ctx: 12%] [project: projects-myapp] [main] [47m] [auto-apply] [plan] ⟳"
    )


# --- /eval -----------------------------------------------------------------------------------


def test_extract_citations() -> None:
    paths, symbols = extract_citations(
        "See src/auth/login.ts:12-20 and `AuthError`, `Cart.total()`; config in "
        "package.json (lines 2-3), e.g. www.example.com, version 5.0.6."
    )
    assert paths == [
        PathCitation("src/auth/login.ts", 12, 20),
        PathCitation("package.json", 2, 3),
    ]
    assert symbols == ["AuthError", "Cart.total"]


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    store = SqliteStore(tmp_path / "s.db", "projects-x")
    files = {
        "src/a.ts": FileData(lines=["x"] * 10, hash="h1", size=10, last_modified=0.0),
        "lib/a.ts": FileData(lines=["y"] * 3, hash="h2", size=3, last_modified=0.0),
    }
    from ipuaro.domain import FileIndexes

    indexes = FileIndexes(
        symbols=[SymbolDef(name="total", path="src/a.ts", line=4, kind="method", container="Cart")]
    )
    store.apply_batch(IndexBatch(files=files, file_indexes={"src/a.ts": indexes}))
    return store


def test_check_paths_against_the_index(store: SqliteStore) -> None:
    known = sorted(store.file_hashes())
    assert check_path(store, PathCitation("src/a.ts", 2, 4), known).ok
    beyond = check_path(store, PathCitation("src/a.ts", 9, 12), known)
    assert not beyond.ok and "has 10 lines" in beyond.detail
    ambiguous = check_path(store, PathCitation("a.ts"), known)
    assert not ambiguous.ok and "did you mean lib/a.ts, src/a.ts" in ambiguous.detail
    assert check_path(store, PathCitation("./src/a.ts"), known).ok


def test_check_symbols_against_the_index(store: SqliteStore) -> None:
    found = check_symbol(store, "Cart.total")
    assert found.ok and found.detail == "defined at src/a.ts:4 (method)"
    assert not check_symbol(store, "missing").ok
    prompt = critique_prompt([found])
    assert "✓ `Cart.total`: defined at src/a.ts:4" in prompt


# --- git -------------------------------------------------------------------------------------


def test_git_branch_reads_head(tmp_path: Path) -> None:
    assert git_branch(tmp_path) is None
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n", "utf-8")
    (tmp_path / "sub").mkdir()
    assert git_branch(tmp_path / "sub") == "feature/x"
    (tmp_path / ".git" / "HEAD").write_text("0123456789abcdef\n", "utf-8")
    assert git_branch(tmp_path) == "01234567"


def test_status_text_shows_the_sandbox_profile_or_its_warning() -> None:
    from ipuaro.security.sandboxing.sandbox import status_label

    assert status_text(StatusFields(project="p", sandbox=status_label("off"))).endswith(
        "[⚠ sandbox off] ✓"
    )
    shown = status_text(StatusFields(project="p", sandbox=status_label("workspace")))
    assert "[sandbox: workspace]" in shown or "[⚠ no sandbox]" in shown
