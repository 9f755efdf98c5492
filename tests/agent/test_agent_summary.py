from __future__ import annotations

from pathlib import Path

from ipuaro.agent.context.ast_summary import file_heading, split_words, summarise_file
from ipuaro.agent.context.project import ProjectSummary
from ipuaro.agent.context.ranking import RankSignals, rank
from ipuaro.llm.tokens import estimate_tokens
from ipuaro.store.protocol import IndexBatch
from tests.agent.synthetic import file_data, meta, project_store, python_ast


def test_file_block_has_signatures_spans_and_no_bodies() -> None:
    summary = summarise_file(
        "core/hub.py", python_ast("hub", 1, ("os",)), meta(deps=["core/db.py"])
    )
    assert "imports: os" in summary.full
    assert "fn hub_fn0(value: int, flag: bool = False) -> int L1-8" in summary.full
    assert "class HubService(Base) L100-180" in summary.full
    assert "__init__() L101-110; async handle(request) L112-150" in summary.full
    assert "deps: db.py" in summary.full  # dependency shown relative to the folder
    assert "self" not in summary.full
    assert summary.brief == "hub_fn0, HubService"
    assert {"hub", "handle", "service"} <= summary.words


def test_heading_tags_hubs_entry_points_and_dependents() -> None:
    summary = summarise_file("a/b.py", None, meta(dependents=4, hub=True, entry=True, loc=12))
    assert file_heading(summary) == "b.py  python 12 loc hub used-by 4 entry"


def test_split_words_handles_camel_snake_and_kebab() -> None:
    assert split_words("validateToken validate_token validate-token.ts") == {
        "validate",
        "token",
        "validatetoken",
        "validate_token",
    }
    assert split_words("QuerySet.filter") == {"queryset", "query", "set", "filter"}


def test_small_project_is_rendered_in_full(tmp_path: Path) -> None:
    store = project_store(tmp_path, 6)
    summary = ProjectSummary(store, estimate_tokens)
    assert summary.refresh() == 6
    text, stats = summary.render(RankSignals(), 10_000, "tests-agent")
    assert stats.files_full == 6 and not stats.folded
    assert stats.tokens <= 10_000
    assert text.startswith("Project tests-agent: 6 files (python 6)")
    assert "hubs: core/hub.py (used by 12)" in text
    assert "entry points: app/main.py" in text
    assert "core/\n  hub.py  python 50 loc hub used-by 12" in text
    store.close()


def test_big_project_is_ranked_and_folded_within_budget(tmp_path: Path) -> None:
    store = project_store(tmp_path, 400)
    summary = ProjectSummary(store, estimate_tokens)
    summary.refresh()
    signals = RankSignals.build(
        "why is the invoice total wrong?", (), (), summary.document_frequency(), 400
    )
    text, stats = summary.render(signals, 2500, "tests-agent")
    assert stats.tokens <= 2500
    assert stats.files_folded > 0
    assert stats.files_full + stats.files_brief + stats.files_folded == 400
    # The words of the message, the hub and the entry point win a full block.
    files = text.split("## Files", 1)[1].split("## Not summarised", 1)[0]
    for wanted in ("invoice_total.py", "hub.py", "main.py"):
        heading = next(line for line in files.splitlines() if line.startswith(f"  {wanted}"))
        assert ":" not in heading.split("  ", 2)[-1]  # not the one-line brief form
    assert "## Not summarised" in text
    assert "pkg" in text.split("## Not summarised", 1)[1]
    store.close()


def test_ranking_prefers_message_words_then_recent_then_hubs(tmp_path: Path) -> None:
    store = project_store(tmp_path, 30)
    summary = ProjectSummary(store, estimate_tokens)
    summary.refresh()
    summaries = {p: c.summary for p, c in summary._cache.items()}
    signals = RankSignals.build(
        "fix invoice",
        recent=["pkg3/sub0/module_24.py"],
        document_frequency=summary.document_frequency(),
        files=summary.file_count,
    )
    order = rank(summaries, signals)
    assert order[0] == "billing/invoice_total.py"
    assert order[1] == "pkg3/sub0/module_24.py"
    assert order[2] == "core/hub.py"
    store.close()


def test_refresh_reloads_only_changed_files_and_follows_deletes(tmp_path: Path) -> None:
    store = project_store(tmp_path, 10)
    summary = ProjectSummary(store, estimate_tokens)
    summary.refresh()
    assert summary.refresh() == 0
    batch = IndexBatch(deletes={"app/main.py"})
    batch.files["billing/invoice_total.py"] = file_data("billing/invoice_total.py", "2")
    batch.asts["billing/invoice_total.py"] = python_ast("renamed", 1)
    batch.metas["billing/invoice_total.py"] = meta()
    store.apply_batch(batch)
    assert summary.refresh() == 1
    assert summary.file_count == 9
    text, _ = summary.render(RankSignals(), 10_000, "p")
    assert "renamed_fn0" in text and "main.py" not in text
    store.close()


def test_tiny_budget_still_names_top_folders(tmp_path: Path) -> None:
    store = project_store(tmp_path, 200)
    summary = ProjectSummary(store, estimate_tokens)
    summary.refresh()
    text, stats = summary.render(RankSignals(), 400, "p")
    assert stats.tokens <= 400
    assert "Project p: 200 files" in text


def test_rare_words_weigh_more_than_common_ones(tmp_path: Path) -> None:
    store = project_store(tmp_path, 50)
    summary = ProjectSummary(store, estimate_tokens)
    summary.refresh()
    summaries = {p: c.summary for p, c in summary._cache.items()}
    df = summary.document_frequency()
    assert df["handle"] == 50 and df["invoice"] == 1
    signals = RankSignals.build("handle the invoice", (), (), df, summary.file_count)
    assert signals.weights["invoice"] > 3 * signals.weights["handle"]
    order = rank(summaries, signals)
    assert order[0] == "billing/invoice_total.py"
    assert order[1] == "core/hub.py"  # "handle" is everywhere: it does not lift plain modules
    store.close()
