"""Large text files without a parser are read again when written, a few at a time (issue 10):
what the index holds is what is on disk, and a file that stops being parsed loses its AST."""

from __future__ import annotations

from pathlib import Path

from ipuaro.config.schema import Config
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.index.pipeline.run import LARGE_TEXT_BYTES
from ipuaro.index.scan.reader import content_hash
from ipuaro.store.sqlite import SqliteStore


def write_log(path: Path, marker: str) -> str:
    line = f"{marker} request served in 12 ms path=/api/v1/items\n"
    text = line * (LARGE_TEXT_BYTES // len(line) + 10)
    path.write_text(text)
    return text


def test_large_text_files_are_stored_exactly_and_replace_what_the_path_held(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    texts = {f"app{n}.log": write_log(root / f"app{n}.log", f"v1-{n}") for n in range(3)}
    (root / "gen.py").write_text("def generated():\n    return 1\n")
    store = SqliteStore(tmp_path / "s.db", "proj")
    config = Config.model_validate({"project": {"maxParseBytes": LARGE_TEXT_BYTES}})
    summary = Indexer(root, config, store).index(workers=1)
    assert summary.files == 4 and summary.parsed == 1
    for name, text in texts.items():
        stored = store.get_file(name)
        assert stored is not None and stored.lines == text.rstrip("\n").split("\n")
        assert stored.hash == content_hash(text.encode())
    assert [d.path for d in store.find_definitions("generated")] == ["gen.py"]

    # gen.py grows past the parse limit (its AST and symbols must go); a log changes.
    big_py = "".join(f"def generated_{i}():\n    return {i}\n\n" for i in range(40_000))
    (root / "gen.py").write_text(big_py)
    changed = write_log(root / "app1.log", "v2")
    again = Indexer(root, config, store).index(workers=1)
    assert again.too_large_to_parse == ["gen.py"] and again.unchanged == 2
    assert store.get_ast("gen.py") is None and store.find_definitions("generated") == []
    gen = store.get_file("gen.py")
    assert gen is not None and gen.hash == content_hash(big_py.encode())
    log = store.get_file("app1.log")
    assert (
        log is not None
        and log.lines[0].startswith("v2 ")
        and log.hash == content_hash(changed.encode())
    )
    assert Indexer(root, config, store).index(workers=1).unchanged == 4
    store.close()
