"""Pure analysis rules: complexity score, hubs, entry points, the graph, call resolution."""

from __future__ import annotations

from ipuaro.domain import ImportInfo
from ipuaro.index.pipeline import analyzer
from ipuaro.index.pipeline.analyzer import DependencyGraph
from ipuaro.index.refs.calls import CallResolver, ModuleLinks, module_links


def test_complexity_formula() -> None:
    score = analyzer.complexity(loc=500, nesting=3, imports=10)
    assert (score.loc, score.nesting, score.imports) == (500, 3, 10)
    assert score.score == 500 / 50 + 2 * 3 + 10 / 5


def test_graph_tracks_dependents_and_reports_changes() -> None:
    graph = DependencyGraph()
    assert graph.set_deps("a.ts", {"b.ts", "c.ts"}) == {"b.ts", "c.ts"}
    graph.set_deps("d.ts", {"b.ts"})
    assert graph.dependents_of("b.ts") == ["a.ts", "d.ts"]
    assert graph.set_deps("a.ts", {"c.ts", "e.ts"}) == {"b.ts", "e.ts"}
    assert graph.dependents_of("b.ts") == ["d.ts"]
    assert graph.remove("d.ts") == {"b.ts"}
    assert graph.dependents_of("b.ts") == []
    assert DependencyGraph.from_mapping(graph.to_mapping()).to_mapping() == graph.to_mapping()


def test_hub_rule_absolute_and_top_percentile() -> None:
    assert analyzer.is_hub(6, threshold=1 << 30)
    assert not analyzer.is_hub(5, threshold=1 << 30)
    # 10 files: the top 1 % is the single most-imported file.
    threshold = analyzer.hub_threshold([3, 1, 1, 0, 0, 0, 0, 0, 0, 0], total_files=10)
    assert threshold == 3
    assert analyzer.is_hub(3, threshold)
    assert not analyzer.is_hub(1, threshold)
    # One dependent is never enough, even at the top.
    assert not analyzer.is_hub(1, analyzer.hub_threshold([1], total_files=1))


def test_meta_entry_points_and_dependents() -> None:
    graph = DependencyGraph.from_mapping(
        {"src/main.ts": ["src/util.ts"], "src/a.ts": ["src/util.ts"], "src/b.ts": ["src/a.ts"]}
    )
    score = analyzer.complexity(10, 1, 1)
    util = analyzer.build_meta("src/util.ts", "typescript", score, graph, threshold=2)
    assert util.dependents == ["src/a.ts", "src/main.ts"]
    assert util.is_hub and not util.is_entry_point
    main = analyzer.build_meta("src/main.ts", "typescript", score, graph, threshold=2)
    assert main.is_entry_point and main.dependencies == ["src/util.ts"]
    a = analyzer.build_meta("src/a.ts", "typescript", score, graph, threshold=2)
    assert not a.is_entry_point  # imported by b.ts and not named like an entry
    manage = analyzer.build_meta("manage.py", "python", score, graph, threshold=2)
    assert manage.is_entry_point
    data = analyzer.build_meta("data.json", "json", score, graph, threshold=2)
    assert not data.is_entry_point  # only code files are entry points
    assert analyzer.is_entry_name("pkg/__main__.py") and analyzer.is_entry_name("src/index.tsx")
    assert not analyzer.is_entry_name("src/indexer.py")


def _imp(name: str, resolved: str | None, *, default: bool = False) -> ImportInfo:
    return ImportInfo(
        name=name, from_="x", line=1, type="internal", resolved=resolved, is_default=default
    )


def test_call_resolution_rules() -> None:
    defines = {
        "math.ts": {"add"},
        "barrel.ts": set(),
        "named.ts": set(),
        "ui.tsx": {"Button"},
        "other.ts": {"add"},
    }
    links = {
        "barrel.ts": module_links([_imp("*", "math.ts")]),
        "named.ts": module_links([_imp("add", "barrel.ts")]),
    }
    resolver = CallResolver(
        lambda path, name: name in defines.get(path, set()),
        lambda path: links.get(path, ModuleLinks()),
    )
    # Bound name, defined where it is imported from.
    assert resolver.target(module_links([_imp("add", "math.ts")]), "add") == "math.ts"
    # Through `export *` and through a named re-export chain.
    assert resolver.target(module_links([_imp("add", "barrel.ts")]), "add") == "math.ts"
    assert resolver.target(module_links([_imp("add", "named.ts")]), "add") == "math.ts"
    # Default import: the module itself.
    assert resolver.target(module_links([_imp("Btn", "ui.tsx", default=True)]), "Btn") == "ui.tsx"
    # Module import then `mod.add()`: the single import defining it.
    assert resolver.target(module_links([_imp("m", "math.ts")]), "add") == "math.ts"
    # Ambiguous: two imported modules define it.
    both = module_links([_imp("m", "math.ts"), _imp("o", "other.ts")])
    assert resolver.target(both, "add") is None
    # Unknown names stay unresolved.
    assert resolver.target(module_links([_imp("add", "math.ts")]), "print") is None
