"""Context for plans: the diet's limits and order of cuts, fulfilling requests from a real
indexed project (cache, secrets, "did you mean"), and auto-context from tracebacks, import
errors and failing tests."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ipuaro.config.loader import load_config
from ipuaro.domain.plan import ContextRequest
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.planning.autocontext import gather
from ipuaro.planning.context import ContextSource
from ipuaro.planning.diet import (
    PRIORITY_AUTO_FILE,
    PRIORITY_ENV,
    PRIORITY_REQUESTED_FILE,
    PRIORITY_SEARCH,
    ContextBlock,
    DietLimits,
    apply_diet,
    truncate_middle,
)
from ipuaro.security.policy.paths import PathPolicy
from ipuaro.store.factory import open_store
from ipuaro.store.protocol import Store
from tests.agent.conftest import project  # noqa: F401  (the real agent_app project)

# --- the diet -------------------------------------------------------------------------------


def file_block(name: str, size: int, priority: int = PRIORITY_REQUESTED_FILE) -> ContextBlock:
    return ContextBlock("file", f"FILE[{name}]", "x" * size, priority, path=name)


def test_a_long_file_keeps_head_and_tail_with_a_marker() -> None:
    text = "".join(f"line {n}\n" for n in range(5000))
    cut_text, cut = truncate_middle(text, 20_000)
    assert len(cut_text) <= 20_000
    head, marker, tail = cut_text.partition(f"\n...[TRUNCATED {cut} chars]...\n")
    assert marker and text.startswith(head) and text.endswith(tail)
    assert len(head) + len(tail) + cut == len(text)
    assert abs(len(head) / (len(head) + len(tail)) - 0.6) < 0.01


def test_limits_cut_searches_first_and_requested_files_last() -> None:
    blocks = [
        file_block("asked.py", 30_000),
        file_block("frame.py", 500, PRIORITY_AUTO_FILE),
        ContextBlock("env", "ENV", "python 3.11", PRIORITY_ENV),
        *[ContextBlock("search", f"SEARCH {n}", "hit", PRIORITY_SEARCH) for n in range(8)],
    ]
    result = apply_diet(blocks, DietLimits(max_blocks=8))
    titles = [b.title for b in result.blocks]
    assert len(titles) == 8
    assert titles[:3] == ["FILE[asked.py]", "FILE[frame.py]", "ENV"]
    assert titles[3:] == [f"SEARCH {n}" for n in range(5)]  # the latest searches went
    assert result.dropped == 3 and result.truncated == 1
    assert "asked.py: cut to its first and last lines, 10,03" in result.cuts[0]
    assert result.cuts[1] == "SEARCH 7: left out (8-block limit)"


def test_the_total_limit_drops_low_priority_then_squeezes_requested_files() -> None:
    blocks = [
        file_block("a.py", 20_000),
        file_block("b.py", 20_000),
        file_block("auto.py", 20_000, PRIORITY_AUTO_FILE),
    ]
    result = apply_diet(blocks, DietLimits(max_total_chars=30_000))
    assert [b.title for b in result.blocks] == ["FILE[a.py]", "FILE[b.py]"]
    assert result.total_chars <= 30_000
    assert any("auto.py" in cut and "left out" in cut for cut in result.cuts)
    assert any("b.py: cut by" in cut for cut in result.cuts)


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.tuples(st.integers(0, 60_000), st.sampled_from([0, 1, 2, 3])), max_size=14),
    max_blocks=st.integers(1, 10),
    max_total=st.integers(4_000, 150_000),
)
def test_the_diet_always_holds_its_limits(
    sizes: list[tuple[int, int]], max_blocks: int, max_total: int
) -> None:
    limits = DietLimits(max_blocks=max_blocks, max_file_chars=20_000, max_total_chars=max_total)
    blocks = [
        ContextBlock("file", f"FILE[{n}]", "y" * size, prio, path=str(n))
        for n, (size, prio) in enumerate(sizes)
    ]
    result = apply_diet(blocks, limits)
    assert len(result.blocks) <= max_blocks
    assert result.total_chars <= max_total
    assert all(len(b.text) <= 20_000 for b in result.blocks)
    assert result.dropped == len(blocks) - len(result.blocks)
    kept = {b.path for b in result.blocks}
    for block in blocks:
        if block.path not in kept:  # nothing of a higher priority went before it
            assert any(cut.startswith(f"FILE[{block.path}]") for cut in result.cuts)


# --- fulfilling requests --------------------------------------------------------------------


@pytest.fixture
def indexed(project: Path) -> tuple[ContextSource, Store]:  # noqa: F811
    config = load_config(project, {})
    store = open_store(config, project)
    Indexer(project, config, store).index(workers=1)
    return ContextSource(project, store, PathPolicy.from_config(project, config)), store


def test_read_file_numbers_lines_and_records_the_files_hash(
    indexed: tuple[ContextSource, Store],
    project: Path,  # noqa: F811
) -> None:
    source, _ = indexed
    block = source.fulfil(
        ContextRequest("read_file", path="shop/pricing.py", start_line=7, end_line=9)
    )
    assert block.title == "FILE[shop/pricing.py] lines 7-9 of 18"
    assert block.text.splitlines()[0] == "7| "
    assert block.text.splitlines()[1].startswith("8| def apply_discount(")
    digest = hashlib.sha256((project / "shop/pricing.py").read_bytes()).hexdigest()
    assert source.read_files == {"shop/pricing.py": digest}


def test_the_cache_counts_hits_and_misses_per_kind(
    indexed: tuple[ContextSource, Store],
) -> None:
    source, _ = indexed
    asked = ContextRequest("read_file", path="shop/cart.py")
    search = ContextRequest("search", query="apply_discount", glob="shop/**")
    first = source.fulfil(asked)
    assert source.fulfil(asked) is first
    found = source.fulfil(search)
    source.fulfil(search)
    assert "shop/pricing.py:8: def apply_discount" in found.text
    assert "tests/" not in found.text  # the glob kept it to shop/
    stats = source.cache.stats()
    assert stats["hits"] == 2 and stats["misses"] == 2 and stats["hitRate"] == 0.5
    assert stats["byKind"]["search"] == {"hits": 1, "misses": 1}


def test_refused_missing_and_secret_files_say_why(
    indexed: tuple[ContextSource, Store],
    project: Path,  # noqa: F811
) -> None:
    source, _ = indexed
    (project / ".env").write_text("TOKEN=abcdefgh\n")
    secret = source.fulfil(ContextRequest("read_file", path=".env"))
    assert "a secret file" in secret.text and "abcdefgh" not in secret.text
    outside = source.fulfil(ContextRequest("read_file", path="../../etc/passwd"))
    assert "refused" in outside.text
    typo = source.fulfil(ContextRequest("read_file", path="shop/pricng.py"))
    assert "did you mean shop/pricing.py," in typo.text
    assert source.read_files == {}


def test_logs_read_a_project_log_file_and_env_describes_the_machine(
    indexed: tuple[ContextSource, Store],
    project: Path,  # noqa: F811
) -> None:
    source, _ = indexed
    (project / "app.log").write_text("".join(f"event {n}\n" for n in range(500)))
    logs = source.fulfil(ContextRequest("logs", source="app.log", last_n=3))
    assert logs.text == "event 497\nevent 498\nevent 499"
    nowhere = source.fulfil(ContextRequest("logs", source="runtime"))
    assert "ipuaro reads log files inside the project only" in nowhere.text
    env = source.fulfil(ContextRequest("env"))
    assert "python (running ipuaro): 3." in env.text and "package manager:" in env.text


# --- auto-context ---------------------------------------------------------------------------


def test_a_node_stack_pulls_the_frames_inside_the_project(
    indexed: tuple[ContextSource, Store],
    project: Path,  # noqa: F811
) -> None:
    source, _ = indexed
    request = (
        "TypeError: x is undefined\n"
        f"    at fmt ({project}/web/format.ts:3:11)\n"
        "    at Object.<anonymous> (/app/node_modules/lib/index.js:10:3)\n"
        "    at web/format.ts:5:1\n"
    )
    auto = gather(request, source, 80)
    assert [b.title for b in auto.blocks] == [
        f"FILE[web/format.ts] lines 1-{len((project / 'web/format.ts').read_text().splitlines())}"
        f" of {len((project / 'web/format.ts').read_text().splitlines())}"
    ]
    assert auto.notes[0].startswith("traceback frame: FILE[web/format.ts]")


def test_frames_far_apart_give_two_ranges(
    indexed: tuple[ContextSource, Store],
    project: Path,  # noqa: F811
) -> None:
    source, _ = indexed
    big = project / "shop" / "big.py"
    big.write_text("".join(f"x{n} = {n}\n" for n in range(1, 401)))
    request = f'File "shop/big.py", line 20, in f\nFile "{big}", line 300, in g\n'
    auto = gather(request, source, 10)
    assert [b.title for b in auto.blocks] == [
        "FILE[shop/big.py] lines 10-30 of 400",
        "FILE[shop/big.py] lines 290-310 of 400",
    ]


def test_an_import_error_pulls_the_environment_and_manifests(
    indexed: tuple[ContextSource, Store],
    project: Path,  # noqa: F811
) -> None:
    source, _ = indexed
    (project / "requirements.txt").write_text("httpx>=0.27\n")
    (project / "package.json").write_text('{"name": "x"}\n')
    (project / "poetry.lock").write_text("# lock\n")
    auto = gather("ModuleNotFoundError: No module named 'httpx'", source, 80)
    titles = [b.title for b in auto.blocks]
    assert titles == ["ENV", "FILE[requirements.txt] (1 lines)", "FILE[package.json] (1 lines)"]
    assert "lock files: poetry.lock" in auto.blocks[0].text
    assert "package manager: poetry, npm" in auto.blocks[0].text
    node = gather("Error: Cannot find module 'left-pad'", source, 80)
    assert node.blocks[0].title == "ENV"


def test_a_failing_test_pulls_the_test_file_and_the_modules_it_imports(
    indexed: tuple[ContextSource, Store],
) -> None:
    source, _ = indexed
    auto = gather("test test_discount_is_capped fails since yesterday", source, 80)
    titles = [b.title for b in auto.blocks]
    assert titles[0].startswith("FILE[tests/cart_checks.py]")
    assert {t.split("]")[0] + "]" for t in titles[1:]} == {
        "FILE[shop/cart.py]",
        "FILE[shop/pricing.py]",
    }
    by_id = gather("tests/cart_checks.py::CartTest::test_discount_is_capped FAILED", source, 80)
    assert by_id.blocks[0].title.startswith("FILE[tests/cart_checks.py]")


def test_a_plain_request_adds_nothing(indexed: tuple[ContextSource, Store]) -> None:
    source, _ = indexed
    auto = gather("add a docstring to Cart", source, 80)
    assert auto.blocks == [] and auto.notes == []
