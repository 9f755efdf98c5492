"""``/eval``'s checks on a real index of the agent_app fixture: invented names are flagged,
parameters and other names the code uses are not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.core.evaluation import check_symbol, extract_citations, gather_evidence
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "agent_app"


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    root = tmp_path / "agent_app"
    shutil.copytree(FIXTURE, root)
    store = SqliteStore(tmp_path / "s.db", "agent-app")
    Indexer(root, Config(), store).index(workers=1)
    return store


def test_calls_with_arguments_and_bare_calls_are_cited() -> None:
    _, symbols = extract_citations(
        "`Cart.total` calls `apply_discount(self.subtotal(), 5)`, then round_cents() "
        "and `tax(amount)`; see shop/cart.py."
    )
    assert symbols == ["Cart.total", "apply_discount", "self.subtotal", "round_cents", "tax"]


def test_an_invented_function_is_flagged(store: SqliteStore) -> None:
    answer = (
        "`Cart.total` discounts with `apply_discount(subtotal, percent)` and adds "
        "`compute_tax_rate(amount)`; the helper round_cents() rounds the result."
    )
    findings = {f.citation: f for f in gather_evidence(store, answer)}
    assert findings["`Cart.total`"].ok and findings["`apply_discount`"].ok
    for invented in ("`compute_tax_rate`", "`round_cents`"):
        assert not findings[invented].ok
        assert "no definition and no use" in findings[invented].detail


def test_a_method_the_class_does_not_have_is_flagged(store: SqliteStore) -> None:
    # checkout and apply_discount exist, but as module functions, not as members of Cart.
    for name in ("Cart.checkout", "Cart.apply_discount"):
        finding = check_symbol(store, name)
        assert not finding.ok and finding.detail.startswith(f"Cart has no {name[5:]}")
    assert check_symbol(store, "LineItem.subtotal").ok
    assert check_symbol(store, "self.subtotal").ok


def test_parameters_and_attributes_are_not_flagged(store: SqliteStore) -> None:
    for name in ("quantity", "discount_percent", "self.items"):
        finding = check_symbol(store, name)
        assert finding.ok, finding
        assert "no definition, used at shop/" in finding.detail
