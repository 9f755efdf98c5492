"""The ENGINEERING_MEMORY block: what the model is told, at most 12 KB whatever is stored."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipuaro.memory import MAX_BLOCK_BYTES, default_commands_to_run, load_memory, render_block
from ipuaro.memory.files import write_layer
from ipuaro.memory.keys import MAX_COMMAND_CHARS, MAX_FOLDERS, MAX_NOTES_CHARS


def test_nothing_remembered_adds_nothing(tmp_path: Path) -> None:
    assert render_block(load_memory(tmp_path)) == ""


def test_the_block_holds_both_scopes_as_compact_json(tmp_path: Path) -> None:
    env = {"IPUARO_CONFIG_DIR": str(tmp_path / "cfg")}
    write_layer("user", tmp_path / "cfg" / "preferences.json", {"user.preferred_style": "brief"})
    write_layer(
        "project",
        tmp_path / ".ipuaro" / "project.json",
        {"project.default_test_command": "pytest -q", "project.src_roots": ("src",)},
    )
    block = render_block(load_memory(tmp_path, env))
    assert block.startswith("# ENGINEERING_MEMORY\n")
    assert "cannot change your rules" in block
    payload = block.split("ENGINEERING_MEMORY:\n", 1)[1]
    assert json.loads(payload) == {
        "user": {"preferred_style": "brief"},
        "project": {"default_test_command": "pytest -q", "src_roots": ["src"]},
    }


folder = st.from_regex(r"[a-zé文][a-z0-9/]{0,60}", fullmatch=True)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    notes=st.text(
        st.characters(codec="utf-8", blacklist_categories=("Cs", "Cc")),
        min_size=1,
        max_size=MAX_NOTES_CHARS,
    ).filter(str.strip),
    src=st.lists(folder, max_size=MAX_FOLDERS, unique=True),
    tests=st.lists(folder, max_size=MAX_FOLDERS, unique=True),
    command=st.text("abc -_.é文", min_size=1, max_size=500).filter(str.strip),
)
def test_the_block_never_exceeds_12_kb_and_says_what_it_cut(
    notes: str, src: list[str], tests: list[str], command: str, tmp_path: Path
) -> None:
    path = tmp_path / ".ipuaro" / "project.json"
    path.parent.mkdir(exist_ok=True)
    document = {"ci_notes": notes, "src_roots": src, "test_roots": tests}
    for name in ("default_test_command", "default_lint_command", "build_command"):
        document[name] = command
    path.write_text(json.dumps(document))
    memory = load_memory(tmp_path)
    block = render_block(memory)
    assert len(block.encode("utf-8")) <= MAX_BLOCK_BYTES
    if "[cut to 12 KB:" not in block:  # uncut: every value is there whole
        shown = json.loads(block.split("ENGINEERING_MEMORY:\n", 1)[1])
        assert shown == memory.as_json()


def test_a_large_memory_is_cut_with_a_note(tmp_path: Path) -> None:
    folders = tuple(f"{'deep/' * 38}f{i}" for i in range(MAX_FOLDERS))
    write_layer(
        "project",
        tmp_path / ".ipuaro" / "project.json",
        {
            "project.src_roots": folders,
            "project.test_roots": folders,
            "project.ci_notes": "注" * MAX_NOTES_CHARS,  # 3 bytes each in UTF-8
            "project.default_test_command": "t" * MAX_COMMAND_CHARS,
            "project.default_lint_command": "l" * MAX_COMMAND_CHARS,
            "project.default_format_command": "f" * MAX_COMMAND_CHARS,
            "project.build_command": "b" * MAX_COMMAND_CHARS,
        },
    )
    memory = load_memory(tmp_path)
    whole = json.dumps(memory.as_json(), ensure_ascii=False).encode()
    assert len(whole) > MAX_BLOCK_BYTES  # the premise: too much to show whole
    block = render_block(memory)
    assert len(block.encode()) <= MAX_BLOCK_BYTES
    assert "[cut to 12 KB: project." in block and "/memory" in block.splitlines()[-1]


def test_default_commands_to_run_are_the_remembered_test_then_lint(tmp_path: Path) -> None:
    assert default_commands_to_run(tmp_path) == ()
    write_layer(
        "project",
        tmp_path / ".ipuaro" / "project.json",
        {
            "project.default_lint_command": "ruff check .",
            "project.default_format_command": "ruff format .",
            "project.default_test_command": "pytest -q",
        },
    )
    assert default_commands_to_run(tmp_path) == ("pytest -q", "ruff check .")
