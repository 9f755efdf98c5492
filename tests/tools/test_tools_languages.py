"""``ipuaro tool`` on Go-, Rust-, Java-, C- and Ruby-shaped projects: get_function,
find_definition, get_class and get_structure answer from the tags languages' index."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ipuaro.cli.main import cli

LANGS = Path(__file__).resolve().parents[1] / "fixtures" / "parsers" / "langs"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "user-config"))
    root = tmp_path / "polyglot"
    shutil.copytree(LANGS, root)
    return root


def tool(project: Path, tool_name: str, **args: object) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli, ["tool", tool_name, "--args", json.dumps(args), "--project", str(project)]
    )
    assert result.exit_code == 0, result.output
    payload: dict[str, Any] = json.loads(result.stdout)
    assert payload["success"], payload
    return payload


@pytest.mark.parametrize(
    ("path", "name", "qualified", "lines"),
    [
        ("shapes.go", "Push", "Stack.Push", (28, 30)),
        ("geometry.rs", "Point.new", "Point.new", (25, 27)),
        ("Library.java", "toString", "Library.toString", (23, 26)),
        ("store.c", "store_add", "store_add", (23, 31)),
        ("account.rb", "deposit", "Account.deposit", (14, 19)),
        ("inventory.ex", "add", "Shop.Inventory.add", (13, 17)),
        ("Vault.sol", "Vault.deposit", "Vault.deposit", (33, 38)),
        ("list.zig", "add", "Point.add", (23, 26)),
        ("shapes.dart", "scaled", "Circle.scaled", (32, 34)),  # from `extension on Circle`
        ("sales.R", "Person.greet", "Person.greet", (26, 28)),  # setMethod("greet", "Person", …)
        ("cart.clj", "Item.price", "Item.price", (12, 13)),  # a protocol method in a defrecord
        ("Cart.elm", "total", "total", (22, 25)),  # from its type annotation
        ("cart.d", "Cart.price", "Cart.price", (31, 35)),  # the interface declares one too
        ("cart.rkt", "add!", "cart%.add!", (27, 28)),  # define/public in a class
        ("cart.el", "cart-total", "cart-total", (16, 19)),
        ("cart.gleam", "label", "label", (27, 29)),
        ("cart.pony", "report", "Cart.report", (33, 39)),  # an actor's behaviour
    ],
)
def test_get_function(
    project: Path, path: str, name: str, qualified: str, lines: tuple[int, int]
) -> None:
    found = tool(project, "get_function", path=path, name=name)["details"]["data"]["matches"]
    assert [(m["name"], m["lineStart"], m["lineEnd"]) for m in found] == [(qualified, *lines)]


def test_find_definition_get_class_and_structure(project: Path) -> None:
    defined = tool(project, "find_definition", name="area")["details"]["data"]["definitions"]
    assert {(d["path"], d["line"], d["container"]) for d in defined} == {
        ("geometry.rs", 18, "Area"),
        ("geometry.rs", 31, "Shape"),
        ("Shapes.swift", 6, "Shape"),
        ("Shapes.swift", 16, "Circle"),
        ("Geometry.hs", 23, None),  # one definition per equation, the first with its signature
        ("Geometry.hs", 25, None),
        ("shapes.dart", 7, "Shape"),
        ("shapes.dart", 16, "Circle"),
        ("cart.clj", 29, None),  # defmulti, then each defmethod
        ("cart.clj", 30, None),
    }
    text = tool(project, "get_class", path="Library.java", name="Library")["data"]
    assert "find(String author, int limit) lines 19-21" in text
    structure = tool(project, "get_structure")["data"]
    assert "shapes.go" in structure and "account.rb" in structure
    refs = tool(project, "find_references", name="Stack")["data"]
    assert refs.startswith("3 references to 'Stack' in 1 file")


def test_find_definition_of_data_entries(project: Path) -> None:
    """A .properties key, a udev LABEL and a Chatito intent are definitions too."""
    found = {
        name: [
            (d["path"], d["line"])
            for d in tool(project, "find_definition", name=name)["details"]["data"]["definitions"]
        ]
        for name in ("db.host", "shop_end", "order_item")
    }
    assert found == {
        "db.host": [("app.properties", 7)],
        "shop_end": [("70-shop.rules", 17)],
        "order_item": [("orders.chatito", 5)],
    }
