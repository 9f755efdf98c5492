"""Opt-in (``pytest -m corpora``): find_references against a semantic truth on pinned corpora,
the TypeScript language service (``typescript`` from npm) for rxjs and @tanstack/query-core and
``jedi`` for django (``pip install -e '.[corpora]'``). Targets from issue 15: precision ≥ 0.95
with recall ≥ 0.97 for everything listed (the default answer), and what is marked exact at
least as precise."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.corpora

BENCH = Path(__file__).resolve().parents[3] / "bench"


@pytest.fixture(scope="module")
def bench() -> Any:
    if shutil.which("node") is None:
        pytest.fail("the corpora lane needs node and npm (apt-get install -y nodejs npm)")
    sys.path.insert(0, str(BENCH))
    try:
        import reference_precision
    finally:
        sys.path.remove(str(BENCH))
    return reference_precision


@pytest.mark.parametrize("corpus", ["query-core", "rxjs", "django"])
def test_precision_and_recall_meet_the_targets(bench: Any, corpus: str) -> None:
    if corpus == "django" and importlib.util.find_spec("jedi") is None:
        pytest.fail("the django truth needs jedi: pip install -e '.[corpora]'")
    fetched = bench.fetch()
    typescript = None if corpus == "django" else fetched["typescript"]
    row = bench.measure(corpus, fetched[corpus], typescript, 40)
    print(corpus, {k: row[k] for k in ("before", "after", "exact")})
    assert row["symbols"] >= 30
    # the judge never loses what the name search found and only removes wrong lines
    assert row["after"]["recall"] >= row["before"]["recall"] - 0.02
    assert row["after"]["precision"] >= row["before"]["precision"]
    assert row["exact"]["precision"] >= 0.95, row
    assert row["after"]["precision"] >= 0.95, row
    assert row["after"]["recall"] >= 0.97, row


@pytest.mark.parametrize(
    ("corpus", "precision"),
    # not tuned on (issue 27): what the judge reaches there, as a floor against regressions;
    # zod and attrs stay below the 0.95 target (bench/README.md names what stays wrong)
    [("zod", 0.93), ("requests", 0.95), ("attrs", 0.93)],
)
def test_libraries_not_tuned_on_exported_names(bench: Any, corpus: str, precision: float) -> None:
    python = corpus in ("requests", "attrs")
    if python and importlib.util.find_spec("jedi") is None:
        pytest.fail(f"the {corpus} truth needs jedi: pip install -e '.[corpora]'")
    fetched = bench.fetch()
    typescript = None if python else fetched["typescript"]
    row = bench.measure(corpus, fetched[corpus], typescript, 40, exported=True)
    print(corpus, {k: row[k] for k in ("before", "after", "exact")})
    assert row["symbols"] >= 30
    assert row["after"]["precision"] >= max(precision, row["before"]["precision"]), row
    assert row["after"]["recall"] >= 0.97, row


def test_go_rust_java_against_a_hand_made_truth(bench: Any) -> None:
    """No compiler judges them here: ``bench/static_references_truth.json`` was written by
    reading every listed line of a sample of names (its ``how`` says which and by what rules)."""
    sys.path.insert(0, str(BENCH))
    try:
        import json

        import static_references
        from corpora import fetch
    finally:
        sys.path.remove(str(BENCH))
    roots = fetch(BENCH / "fetch-lang-corpora.sh")
    truth = json.loads(static_references.TRUTH.read_text(encoding="utf-8"))
    for corpus, symbols in truth["corpora"].items():
        row = static_references.measure(corpus, roots[corpus], symbols)
        print(corpus, {k: row[k] for k in ("before", "after", "exact")})
        assert row["after"]["recall"] >= 0.99, row
        assert row["after"]["precision"] >= 0.95, row
        assert row["after"]["precision"] > row["before"]["precision"], row
