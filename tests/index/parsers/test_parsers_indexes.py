"""Index contributions: symbols, references (positions, no keywords/strings/comments), calls."""

from __future__ import annotations

from ipuaro.domain.indexes import CallEdge, FileIndexes, Reference
from ipuaro.index.parsers import parse_source

from .support import parse_fixture

TS_SNIPPET = """\
import { api } from "./api";
// helper is mentioned in a comment
export class Store<T> extends Base implements Api {
  #items: T[] = [];
  load(id: string): T {
    const label = "helper in a string";
    return api.fetch<T>(id, { label, retry: true });
  }
}
"""


def test_references_are_exact_identifier_positions() -> None:
    refs = [
        (r.name, r.line, r.column) for r in parse_source("src/store.ts", TS_SNIPPET).references()
    ]
    assert refs == [
        ("api", 1, 10),
        ("Store", 3, 14),
        ("T", 3, 20),
        ("Base", 3, 31),
        ("Api", 3, 47),
        ("#items", 4, 3),
        ("T", 4, 11),
        ("load", 5, 3),
        ("id", 5, 8),
        ("T", 5, 21),
        ("label", 6, 11),
        ("api", 7, 12),
        ("fetch", 7, 16),
        ("T", 7, 22),
        ("id", 7, 25),
        ("label", 7, 31),
        ("retry", 7, 38),
    ]


def test_references_skip_keywords_strings_and_comments() -> None:
    names = {r.name for r in parse_source("src/store.ts", TS_SNIPPET).references()}
    assert not names & {"import", "from", "export", "class", "const", "return", "true", "helper"}


def test_python_references_include_attribute_names() -> None:
    text = "import os\n\ndef run(self):\n    return os.path.join(self.root, 'x')  # root\n"
    refs = [(r.name, r.line, r.column) for r in parse_source("pkg/run.py", text).references()]
    assert refs == [
        ("os", 1, 8),
        ("run", 3, 5),
        ("self", 3, 9),
        ("os", 4, 12),
        ("path", 4, 15),
        ("join", 4, 20),
        ("self", 4, 25),
        ("root", 4, 30),
    ]


def test_reference_table_holds_every_reference_once_in_document_order() -> None:
    parsed = parse_source("src/store.ts", TS_SNIPPET)
    table = parsed.indexes.reference_table
    assert parsed.indexes.references == []  # the compact form only: no model per identifier
    models = parsed.references()
    assert (
        parsed.indexes.reference_count() == len(models) == sum(len(p) for p in table.values()) // 2
    )
    assert [(r.line, r.column) for r in models] == sorted((r.line, r.column) for r in models)
    for name, positions in table.items():
        pairs = list(zip(positions[::2], positions[1::2], strict=True))
        assert pairs == sorted(pairs)
        assert pairs == [(r.line, r.column) for r in models if r.name == name]
    for reference in models:
        validated = Reference(
            name=reference.name, path="src/store.ts", line=reference.line, column=reference.column
        )
        assert reference == validated and reference.to_json() == validated.to_json()
    round_trip = FileIndexes.model_validate_json(parsed.indexes.to_json())
    assert round_trip == parsed.indexes


def test_references_carry_the_given_path() -> None:
    parsed = parse_source("packages/app/src/store.ts", TS_SNIPPET)
    assert {r.path for r in parsed.references()} == {"packages/app/src/store.ts"}
    assert {s.path for s in parsed.indexes.symbols} == {"packages/app/src/store.ts"}
    assert {c.path for c in parsed.indexes.calls} == {"packages/app/src/store.ts"}


def test_symbols_cover_every_definition_kind() -> None:
    symbols = {
        (s.name, s.kind, s.line, s.line_end, s.container)
        for s in parse_fixture("spans.ts").indexes.symbols
    }
    assert {
        ("Headers", "type", 12, 12, None),
        ("RequestOptions", "interface", 14, 19, None),
        ("RetryPolicy", "enum", 21, 25, None),
        ("DEFAULT_TIMEOUT", "const", 27, 27, None),
        ("sleep", "function", 29, 30, None),
        ("HttpError", "class", 99, 113, None),
        ("retryable", "method", 106, 108, "HttpError"),
        ("Retry", "namespace", 237, 264, None),
        ("push", "method", 286, 288, "Queue"),
    } <= symbols


def test_calls_name_the_last_identifier_and_the_enclosing_definition() -> None:
    calls = {(c.caller, c.callee, c.line) for c in parse_fixture("spans.ts").indexes.calls}
    assert {
        ("sleep", "setTimeout", 30),
        ("sleep", "Promise", 30),  # new Promise(...)
        ("withTimeout", "race", 41),  # Promise.race(...)
        ("withTimeout", "reject", 38),  # inside a nested arrow: attributed to withTimeout
        ("HttpError.retryable", "isRetryable", 107),
        ("FetchTransport.request", "Request", 175),
        ("FetchTransport.request", "#resolve", 175),
        ("FetchTransport.send", "withTimeout", 161),
        ("EventBus", "debounce", 232),  # field initialiser belongs to the class
        ("Queue.push", "push", 287),
    } <= calls
    # `@sealed` names a decorator without calling it
    assert "sealed" not in {callee for _, callee, _ in calls}
    assert all(c.resolved is None for c in parse_fixture("spans.ts").indexes.calls)


def test_module_level_calls() -> None:
    calls = [
        (c.caller, c.callee, c.line)
        for c in parse_source("a.js", "setup();\nx.y.z();\nnew A.B();\n").indexes.calls
    ]
    assert calls == [("<module>", "setup", 1), ("<module>", "z", 2), ("<module>", "B", 3)]


def test_nesting_depth() -> None:
    assert parse_source("a.ts", "const x = 1;\n").nesting == 0
    assert parse_source("a.ts", "function f() { return 1; }\n").nesting == 1
    assert parse_source("a.ts", "function f() { if (a) { for (;;) { g(); } } }\n").nesting == 3
    assert parse_source("a.ts", "class A { m() { if (a) {} } }\n").nesting == 3
    assert parse_source("a.py", "def f():\n    if a:\n        return 1\n").nesting == 2
    assert parse_source("a.py", "class A:\n    def m(self):\n        pass\n").nesting == 2


def test_call_edges_equal_validated_models() -> None:
    parsed = parse_fixture("spans.ts")
    assert parsed.indexes.calls
    for edge in parsed.indexes.calls:
        validated = CallEdge(path=edge.path, caller=edge.caller, callee=edge.callee, line=edge.line)
        assert edge == validated
        assert edge.to_json() == validated.to_json()
        assert edge.model_fields_set == validated.model_fields_set


def test_jsdoc_names_are_references() -> None:
    from ipuaro.index.parsers import parse_source

    source = (
        "/**\n * Returns {@link Observable} of {@link   EmptyError}.\n"
        " * @param {Array<Foo|Bar>} xs the values\n */\nexport function f(xs) {}\n"
        "// {@link NotJsDoc}\n"
    )
    table = parse_source("a.ts", source).indexes.reference_table
    assert table["Observable"] == [2, 19]
    assert table["EmptyError"] == [2, 43]
    assert (table["Foo"], table["Bar"]) == ([3, 18], [3, 22])
    assert "NotJsDoc" not in table
