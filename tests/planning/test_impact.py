"""The plan checked against the index with the real tree-sitter parsers: a renamed function
whose callers live in two other files the plan leaves alone is listed with every use, a
changed signature too, a caller the plan updates is not, and names the plan invents are
flagged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ipuaro.domain.plan import Action, PlanStep
from ipuaro.planning.apply import prepare
from tests.planning.conftest import Project, make_project, record

SHOP = {
    "src/pricing.ts": (
        "export function applyDiscount(total: number, percent: number): number {\n"
        "  return total - (total * percent) / 100;\n"
        "}\n\n"
        "export class Till {\n"
        "  open(cash: number): void {}\n"
        "  close(): number { return 0; }\n"
        "}\n"
    ),
    "src/cart.ts": (
        "import { applyDiscount } from './pricing';\n\n"
        "export function cartTotal(items: number[]): number {\n"
        "  const sum = items.reduce((a, b) => a + b, 0);\n"
        "  return applyDiscount(sum, 10);\n"
        "}\n"
    ),
    "src/checkout.ts": (
        "import { applyDiscount, Till } from './pricing';\n\n"
        "export function pay(total: number): number {\n"
        "  const till = new Till();\n"
        "  till.open(total);\n"
        "  return applyDiscount(total, 5) + applyDiscount(1, 0);\n"
        "}\n"
    ),
    "src/unrelated.ts": (
        "function applyDiscount(x: number): number { return x; }\n"
        "export const y = applyDiscount(3);\n"
    ),
}


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path / "shop", SHOP, tmp_path / "shop.db")
    try:
        yield project
    finally:
        project.store.close()


def pricing(shop: Project, old: str, new: str) -> Action:
    text = (shop.root / "src/pricing.ts").read_text()
    assert old in text
    return Action("UPDATE_FILE", "src/pricing.ts", text.replace(old, new))


def test_a_renamed_function_with_callers_in_two_other_files(shop: Project) -> None:
    plan = record(
        [pricing(shop, "function applyDiscount", "function applyRebate")],
        read=shop.read("src/pricing.ts"),
    )
    impact = prepare(plan, shop.paths, shop.store).impact
    assert impact is not None
    (item,) = impact.may_break
    assert item.line() == (
        "may break: `applyDiscount` (removed from src/pricing.ts) — 5 uses (3 calls) in 2 files "
        "not updated: src/cart.ts:1, src/cart.ts:5, src/checkout.ts:1, src/checkout.ts:6, "
        "src/checkout.ts:6"
    )
    # src/unrelated.ts defines its own applyDiscount and does not import pricing.ts: not listed
    assert {u.path for u in item.uses} == {"src/cart.ts", "src/checkout.ts"}
    assert item.line() in prepare(plan, shop.paths, shop.store).risks()


def test_callers_the_plan_updates_are_not_listed_unless_they_still_use_the_old_name(
    shop: Project,
) -> None:
    cart = (shop.root / "src/cart.ts").read_text()
    checkout = (shop.root / "src/checkout.ts").read_text()
    plan = record(
        [
            pricing(shop, "function applyDiscount", "function applyRebate"),
            Action("UPDATE_FILE", "src/cart.ts", cart.replace("applyDiscount", "applyRebate")),
            Action("UPDATE_FILE", "src/checkout.ts", checkout + "// reviewed\n"),
        ],
        read=shop.read("src/pricing.ts", "src/cart.ts", "src/checkout.ts"),
    )
    impact = prepare(plan, shop.paths, shop.store).impact
    assert impact is not None
    (item,) = impact.may_break
    assert item.uses == () and item.still_used_in_plan == ("src/checkout.ts",)
    assert item.line() == (
        "may break: `applyDiscount` (removed from src/pricing.ts) — still used in the plan's "
        "new text of src/checkout.ts"
    )
    plan = record(
        [
            pricing(shop, "function applyDiscount", "function applyRebate"),
            Action("UPDATE_FILE", "src/cart.ts", cart.replace("applyDiscount", "applyRebate")),
            Action(
                "UPDATE_FILE", "src/checkout.ts", checkout.replace("applyDiscount", "applyRebate")
            ),
        ],
        read=shop.read("src/pricing.ts", "src/cart.ts", "src/checkout.ts"),
    )
    impact = prepare(plan, shop.paths, shop.store).impact
    assert impact is not None and impact.may_break == []


def test_changed_signatures_and_methods(shop: Project) -> None:
    plan = record(
        [
            pricing(
                shop,
                "applyDiscount(total: number, percent: number)",
                "applyDiscount(total: number, percent: number, cap: number)",
            )
        ],
        read=shop.read("src/pricing.ts"),
    )
    impact = prepare(plan, shop.paths, shop.store).impact
    assert impact is not None
    assert [i.line().split(" — ")[0] for i in impact.may_break] == [
        "may break: `applyDiscount` (signature changed in src/pricing.ts)"
    ]
    plan = record(
        [pricing(shop, "open(cash: number)", "openWith(cash: number)")],
        read=shop.read("src/pricing.ts"),
    )
    impact = prepare(plan, shop.paths, shop.store).impact
    assert impact is not None
    (item,) = impact.may_break
    assert item.line() == (
        "may break: `Till.open` (removed from src/pricing.ts) — 1 use (1 call) in 1 file not "
        "updated: src/checkout.ts:5"
    )


def test_deleting_the_file_breaks_its_importers(shop: Project) -> None:
    impact = prepare(
        record([Action("DELETE_FILE", "src/pricing.ts")]), shop.paths, shop.store
    ).impact
    assert impact is not None
    assert [i.symbol for i in impact.may_break] == ["applyDiscount", "Till", "Till.open"]


def test_names_the_plan_invents_are_flagged(shop: Project) -> None:
    plan = record(
        [Action("CREATE_FILE", "src/fees.ts", "export function serviceFee() { return 1 }\n")],
        summary="Use `applyDiscount` with `computeLoyalty()` and add `serviceFee`",
        steps=[PlanStep("wire it", "call validateCoupon() from `Till.open`, see `cart.ts`")],
    )
    impact = prepare(plan, shop.paths, shop.store).impact
    assert impact is not None
    assert impact.unknown_symbols == ["computeLoyalty", "validateCoupon"]
    assert impact.risks() == [
        "unknown symbol: `computeLoyalty` is named by the plan but neither defined nor used "
        "anywhere in the index (nor defined by the plan)",
        "unknown symbol: `validateCoupon` is named by the plan but neither defined nor used "
        "anywhere in the index (nor defined by the plan)",
    ]


def test_preview_for_showing_with_the_plan(shop: Project) -> None:
    from ipuaro.planning.apply import preview

    renamed = record(
        [pricing(shop, "function applyDiscount", "function applyRebate")],
        read=shop.read("src/pricing.ts"),
    )
    assert [line.split(" — ")[0] for line in preview(renamed, shop.paths, shop.store)] == [
        "may break: `applyDiscount` (removed from src/pricing.ts)"
    ]
    blind = record([pricing(shop, "function applyDiscount", "function applyRebate")])
    (line,) = preview(blind, shop.paths, shop.store)
    assert line.startswith("ERR_UPDATE_WITHOUT_BASE: action 1 (UPDATE_FILE src/pricing.ts)")
    assert preview(record(summary="NO_CHANGES: fine"), shop.paths, shop.store) == []
    assert (shop.root / "src/pricing.ts").read_text() == SHOP["src/pricing.ts"]


def test_an_applied_plan_gets_the_after_edit_check_too(shop: Project) -> None:
    """Plan mode warns before the write (the risks) and, like every edit, reads what the applied
    change broke after it: the callers a rename left behind, then a brace a plan dropped."""
    from ipuaro.config.schema import Config
    from ipuaro.index.pipeline.indexer import Indexer
    from tests.planning.conftest import write_plan

    indexer = Indexer(shop.root, Config(), shop.store)
    text = (shop.root / "src/pricing.ts").read_text()
    renamed = text.replace("function applyDiscount", "function applyRebate")
    plan = record(
        [Action("UPDATE_FILE", "src/pricing.ts", renamed)], read=shop.read("src/pricing.ts")
    )
    committed = write_plan(
        prepare(plan, shop.paths, shop.store), shop.store, indexer.update_paths, "p1", limit=50
    )
    assert committed.applied and committed.check is not None
    (item,) = committed.check.may_break
    assert item.symbol == "applyDiscount"
    assert {u.path for u in item.uses} == {"src/cart.ts", "src/checkout.ts"}
    assert "may break: `applyDiscount` (removed from src/pricing.ts)" in committed.notes

    broken = renamed.replace(
        "  close(): number { return 0; }\n}\n", "  close(): number { return 0; }\n"
    )
    plan = record(
        [Action("UPDATE_FILE", "src/pricing.ts", broken)], read=shop.read("src/pricing.ts")
    )
    committed = write_plan(
        prepare(plan, shop.paths, shop.store), shop.store, indexer.update_paths, "p2", limit=50
    )
    assert committed.applied and committed.check is not None
    assert [(p.line, p.kind) for p in committed.check.syntax] == [(7, "missing")]
    assert "new syntax error at src/pricing.ts:7:" in committed.notes
