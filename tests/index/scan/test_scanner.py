"""The scanner and ignore rules on real folders: gitignore semantics, binaries, symlinks."""

from __future__ import annotations

import os
from pathlib import Path

from ipuaro.config.schema import Config
from ipuaro.index.scan.ignore import ProjectIgnore
from ipuaro.index.scan.reader import read_entry, split_lines
from ipuaro.index.scan.scanner import scan
from tests.index.conftest import write


def paths(root: Path, config: Config, **kwargs: bool) -> dict[str, str]:
    return {e.path: e.kind for e in scan(root, config, **kwargs).entries}


def test_nested_gitignore_with_negations(tmp_path: Path, config: Config) -> None:
    write(tmp_path, ".gitignore", "*.log\n!keep.log\nbuild/\n/rootonly.txt\n")
    write(tmp_path, "app.log", "x")
    write(tmp_path, "keep.log", "x")
    write(tmp_path, "rootonly.txt", "x")
    write(tmp_path, "build/out.js", "x")
    write(tmp_path, "sub/.gitignore", "!important.log\nsecret.txt\nkeep.log\n")
    write(tmp_path, "sub/important.log", "x")
    write(tmp_path, "sub/other.log", "x")
    write(tmp_path, "sub/secret.txt", "x")
    write(tmp_path, "sub/keep.log", "x")
    write(tmp_path, "sub/rootonly.txt", "x")
    # A deeper file cannot re-include a path whose folder is ignored (git semantics).
    write(tmp_path, "build/.gitignore", "!out.js\n")
    write(tmp_path, "sub/deeper/.gitignore", "!secret.txt\n")
    write(tmp_path, "sub/deeper/secret.txt", "x")

    found = paths(tmp_path, config)

    assert "app.log" not in found
    assert "keep.log" in found
    assert "rootonly.txt" not in found
    assert not any(p.startswith("build/") for p in found)
    assert "sub/important.log" in found  # re-included by the nested file
    assert "sub/other.log" not in found
    assert "sub/secret.txt" not in found
    assert "sub/keep.log" not in found  # the nested file overrides the root negation
    assert "sub/rootonly.txt" in found  # anchored pattern applies at the root only
    assert "sub/deeper/secret.txt" in found  # the deepest file decides
    assert ".gitignore" in found and "sub/.gitignore" in found


def test_ignore_patterns_from_config_and_git_dir(tmp_path: Path) -> None:
    config = Config.model_validate({"project": {"ignorePatterns": ["generated/", "*.snap"]}})
    write(tmp_path, "generated/a.ts", "x")
    write(tmp_path, "src/a.snap", "x")
    write(tmp_path, "src/a.ts", "x")
    write(tmp_path, ".git/HEAD", "ref: refs/heads/main\n")
    write(tmp_path, ".git/objects/ab/cdef", b"\x00\x01")
    write(tmp_path, "vendor/.git", "gitdir: elsewhere\n")  # a submodule's .git file
    write(tmp_path, "node_modules/react/index.js", "x")  # not in this config's patterns

    found = paths(tmp_path, config)

    assert set(found) == {"src/a.ts", "node_modules/react/index.js"}


def test_default_ignore_patterns(tmp_path: Path, config: Config) -> None:
    write(tmp_path, "node_modules/react/index.js", "x")
    write(tmp_path, "dist/app.js", "x")
    write(tmp_path, "vendor/jquery.min.js", "x")
    write(tmp_path, "src/app.js", "x")
    assert set(paths(tmp_path, config)) == {"src/app.js"}


def test_binary_by_extension_and_content(tmp_path: Path, config: Config) -> None:
    write(tmp_path, "logo.PNG", b"not really a png")
    write(tmp_path, "data.bin", b"abc\x00def")
    write(tmp_path, "late-nul.txt", b"a" * 9000 + b"\x00")  # NUL after the first 8 KB
    write(tmp_path, "text.md", "# hi\n")

    assert paths(tmp_path, config) == {
        "data.bin": "text",  # the reader decides by content unless sniffing is asked for
        "late-nul.txt": "text",
        "logo.PNG": "binary",
        "text.md": "text",
    }
    sniffed = paths(tmp_path, config, sniff_content=True)
    assert sniffed["data.bin"] == "binary"
    assert sniffed["late-nul.txt"] == "text"

    entries = {e.path: e for e in scan(tmp_path, config).entries}
    assert read_entry(tmp_path, entries["data.bin"]).status == "binary"
    assert read_entry(tmp_path, entries["logo.PNG"]).status == "binary"
    assert read_entry(tmp_path, entries["text.md"]).status == "text"


def test_non_utf8_file_is_reported_not_raised(tmp_path: Path, config: Config) -> None:
    write(tmp_path, "latin1.txt", "café".encode("latin-1"))
    write(tmp_path, "ok.txt", "café")
    entries = {e.path: e for e in scan(tmp_path, config).entries}
    assert read_entry(tmp_path, entries["latin1.txt"]).status == "non_utf8"
    outcome = read_entry(tmp_path, entries["ok.txt"])
    assert (outcome.status, outcome.text) == ("text", "café")


def test_symlinks_are_metadata_and_never_followed(tmp_path: Path, config: Config) -> None:
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    write(outside, "secret.py", "x = 1\n")
    write(project, "src/real.py", "y = 2\n")
    os.symlink("real.py", project / "src/inside_link.py")
    os.symlink(outside, project / "out_dir")
    os.symlink(outside / "secret.py", project / "out_file.py")
    os.symlink("loop_b", project / "loop_a")
    os.symlink("loop_a", project / "loop_b")
    os.symlink("..", project / "src/parent")  # a directory loop

    result = scan(project, config)
    found = {e.path: e for e in result.entries}

    assert set(found) == {
        "src/real.py",
        "src/inside_link.py",
        "out_dir",
        "out_file.py",
        "loop_a",
        "loop_b",
        "src/parent",
    }
    assert found["src/inside_link.py"].kind == "symlink"
    assert found["src/inside_link.py"].target == "real.py"
    assert found["out_dir"].target == str(outside)
    assert found["loop_a"].target == "loop_b"
    assert found["src/parent"].kind == "symlink"
    outcome = read_entry(project, found["out_file.py"])
    assert outcome.status == "symlink" and outcome.text is None


def test_ignore_matcher_answers_for_nested_paths(tmp_path: Path, config: Config) -> None:
    write(tmp_path, ".gitignore", "out/\n")
    write(tmp_path, "pkg/.gitignore", "*.tmp\n")
    matcher = ProjectIgnore.from_root(tmp_path, config)
    assert matcher.is_ignored("out/deep/file.ts")
    assert matcher.is_ignored("pkg/a/b.tmp")
    assert not matcher.is_ignored("b.tmp")
    assert matcher.is_ignored("node_modules/x/y.js")
    assert matcher.is_ignored(".git/config")
    assert not matcher.is_ignored("pkg/a/b.ts")
    write(tmp_path, "pkg/.gitignore", "*.ts\n")
    matcher.invalidate("pkg")
    assert matcher.is_ignored("pkg/a/b.ts")


def test_split_lines_keeps_eol_style() -> None:
    assert split_lines("a\nb\n") == (["a", "b"], "\n", True)
    assert split_lines("a\r\nb") == (["a", "b"], "\r\n", False)
    assert split_lines("") == ([], "\n", False)
    assert split_lines("a\x0cb\u2028c\n") == (["a\x0cb\u2028c"], "\n", True)
