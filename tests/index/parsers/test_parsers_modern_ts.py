"""TypeScript 4.7–5.x syntax the grammar misses (variance annotations, ``static accessor``,
signature lines, ``export type *``, escaped backticks in template literal types) parses fully,
with every offset where it was (``_ts_syntax``)."""

from __future__ import annotations

import pytest

from ipuaro.index.parsers import parse_source
from ipuaro.index.parsers._languages import parser
from ipuaro.index.parsers._ts_syntax import parse as parse_modern

from .support import marked_spans, parse_fixture, parsed_spans, read_fixture


def test_the_fixture_fails_the_bare_grammar_and_parses_fully_here() -> None:
    text = read_fixture("modern.ts")
    assert parser("typescript").parse(text.encode()).root_node.has_error
    parsed = parse_fixture("modern.ts")
    assert not parsed.ast.parse_error
    assert parsed_spans(parsed) == marked_spans(text)


def test_declarations_after_the_new_syntax_are_found() -> None:
    ast = parse_fixture("modern.ts").ast
    assert {t.name for t in ast.types} == {"Cache", "Handler", "MissingSelf", "Flags"}
    exported = {e.name for e in ast.exports}
    assert {"combine", "palette", "lastOne", "Shapes"} <= exported
    store = next(c for c in ast.classes if c.name == "Store")
    assert [p.name for p in store.properties][:3] == ["instances", "title", "secret"]


@pytest.mark.parametrize(
    "source",
    [
        "interface Cache<in out Key, out Error = never> {}\nexport function after() {}\n",
        "class Box<in T> {}\nexport function after() {}\n",
        "type F<out T> = () => T;\nexport function after() {}\n",
        "declare function f<in T>(): void;\nexport function after() {}\n",
        "class A { static accessor b: string; }\nexport function after() {}\n",
        "export type * from './a';\nexport function after() {}\n",
        "type M = `a \\`b\\` ${string}`;\nexport function after() {}\n",
        "let c: {\n  (x: X): <A>(a: A) => B\n  <A>(a: A): B\n} = f\nexport function after() {}\n",
        'declare const c: import("./f.js").Ref<C>;\nexport function after() {}\n',
        'let n: new <A = {}>(a: import("./t").Eq<A, {}>) => A;\nexport function after() {}\n',
    ],
)
def test_each_construct_alone(source: str) -> None:
    assert parser("typescript").parse(source.encode()).root_node.has_error
    parsed = parse_source("src/a.ts", source)
    assert not parsed.ast.parse_error
    after = parsed.ast.functions[-1]
    assert (after.name, after.line_start) == ("after", source.count("\n"))


def test_masking_keeps_every_offset_and_the_original_text() -> None:
    source = "export interface Cache<in out Key> { k: Key }\n"
    parsed = parse_source("src/a.ts", source)
    assert [(t.name, t.line_start) for t in parsed.ast.types] == [("Cache", 1)]
    tree = parse_modern(parser("typescript"), source.encode())
    declaration = tree.root_node.children[0].child_by_field_name("declaration")
    assert declaration is not None
    parameter = declaration.child_by_field_name("type_parameters")
    assert parameter is not None
    assert source.encode()[parameter.start_byte : parameter.end_byte] == b"<in out Key>"
    # references keep their columns: `Key` is used at column 42
    assert parsed.references()[-1].name == "Key"
    assert parsed.references()[-1].column == source.rindex("Key") + 1


def test_look_alikes_in_strings_and_loops_are_not_masked() -> None:
    # a parse error elsewhere makes the masker look at the file
    source = 'for (const k in o) { s = "<in out X>"; t = `\\``; }\nlet broken = ;\n'
    tree = parse_modern(parser("typescript"), source.encode())
    assert tree.root_node.has_error
    loop = tree.root_node.children[0]
    assert loop.type == "for_in_statement"
    text = source.encode()
    string = loop.child_by_field_name("body")
    assert string is not None and b"<in out X>" in text[string.start_byte : string.end_byte]


def test_tsx_masks_too_without_touching_jsx_lines() -> None:
    source = (
        "export class View<in out P> {\n  render() {\n    return (\n      <div>\n"
        "        <span/>\n      </div>\n    );\n  }\n}\n"
    )
    parsed = parse_source("src/view.tsx", source)
    assert not parsed.ast.parse_error
    assert [(c.name, c.line_end) for c in parsed.ast.classes] == [("View", 9)]


def test_signatures_already_separated_get_no_second_separator() -> None:
    # `;` written after the first signature: a masked `;;` would be an error of its own
    source = (
        "interface I<out T> { t: T }\nlet c: {\n  /** a */\n  <A>(x: A): <B>(b: B) => A;\n"
        "  /** b\n   */\n  <A>(a: A): B;\n} = f\nexport function after() {}\n"
    )
    tree = parse_modern(parser("typescript"), source.encode())
    assert not tree.root_node.has_error
