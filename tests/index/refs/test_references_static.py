"""The reference judge for Go, Rust and Java (``index/refs/static_scopes.py``) on real tree-sitter
parses: locals and parameters shadow, ``pkg.Name`` goes through the file's imports, a method
is reached through a receiver and Java's methods have a namespace of their own."""

from __future__ import annotations

from pathlib import Path

from ipuaro.index.refs.references import judge_references
from ipuaro.store.sqlite import SqliteStore
from tests.index.conftest import make_indexer, write

GO_MAIN = """package a

import (
	"fmt"
	str "strings"
	"example.com/m/util"
	"example.com/m/other"
)

type Box struct{ Name string }

func (b *Box) Run(n int) int { return n }

func Run(x int) int {
	Run := 3
	_ = Run
	f := func(Run int) int { return Run }
	for _, Run := range []int{1} {
		_ = Run
	}
	b := &Box{Name: "x"}
	fmt.Println(str.ToUpper("a"), f(x), other.Run(1))
	fmt.Println(util.Run(1))
	fmt.Println(b.Run(2))
	return x
}
"""
GO_SAME_PACKAGE = """package a

func helper() int {
	return Run(1)
}
"""
GO_ELSEWHERE = """package b

func Run() int { return 2 }

func call() int {
	return Run()
}
"""

RUST_LIB = """use crate::util::run;
use crate::util::run as go;
use std::thread::spawn as run_std;

pub struct Boxed {
    pub run: i32,
}

impl Boxed {
    pub fn run(&self) -> i32 {
        self.run
    }
}

pub fn caller(x: i32) -> i32 {
    let f = |run: i32| run;
    if let Some(run) = Some(1) {
        return run;
    }
    let b = Boxed { run: 1 };
    let total = b.run() + crate::util::run() + go() + f(x);
    let run = 2;
    total + run
}
"""
RUST_UTIL = "pub fn run() -> i32 {\n    1\n}\n"
RUST_OTHER = "pub fn other() -> i32 {\n    run()\n}\n"
RUST_MACRO = """use crate::util;

macro_rules! twice {
    ($b:expr) => { $b.run() + $b.run() };
}

pub fn m() -> i32 {
    util::run()
}
"""

JAVA_A = """package com.example;

import java.util.List;
import com.example.util.Helper;

public class A extends Base {
    private int run;

    void call(Helper h, List<String> list) {
        int x = run(1);
        int y = this.run(2) + h.run(3) + Helper.run(4);
        for (String run : list) {
            run.length();
        }
        int z = this.run;
        java.util.function.IntUnaryOperator g = run -> run + 1;
        Other o = new Other();
        o.run(5);
    }
}
"""
JAVA_BASE = """package com.example;

public class Base {
    public int run(int x) {
        return x;
    }
}
"""
JAVA_HELPER = """package com.example.util;

public class Helper {
    public static int run(int x) {
        return x;
    }
}
"""
JAVA_OTHER = """package com.example;

public class Other {
    public void start() {}
}
"""


def _kept(store: SqliteStore, name: str, path: str) -> dict[int, set[str]]:
    """Line → the confidences of the uses kept there (``name`` only, not aliases)."""
    kept: dict[int, set[str]] = {}
    for judged in judge_references(store, name, store.find_references(name)):
        if judged.reference.path == path and judged.reference.name == name:
            kept.setdefault(judged.reference.line, set()).add(judged.confidence)
    return kept


def test_go_scopes_packages_and_methods(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "go"
    write(root, "go.mod", "module example.com/m\n\ngo 1.21\n")
    write(root, "a.go", GO_MAIN)
    write(root, "helper.go", GO_SAME_PACKAGE)
    write(root, "util/util.go", "package util\n\nfunc Run(x int) int { return x }\n")
    write(root, "other/other.go", "package other\n\nfunc Start() {}\n")
    write(root, "b/b.go", GO_ELSEWHERE)
    write(root, "c/c.go", "package c\n\nfunc call() int {\n\treturn Run()\n}\n")
    write(
        root,
        "recv.go",
        "package a\n\nfunc viaParameter(b *Box) int {\n\treturn b.Run(1)\n}\n\n"
        "func viaCall() int {\n\treturn newBox().Run(2)\n}\n",
    )
    write(
        root,
        "remote.go",
        'package a\n\nimport "github.com/other/lib"\n\n'
        "func remote() int {\n\treturn lib.Run(1)\n}\n",
    )
    make_indexer(root, store).index(workers=1)
    assert _kept(store, "Run", "a.go") == {
        12: {"exact"},  # the method's definition
        14: {"exact"},  # the function's
        # 15-20: the local `Run := 3`, the closure's parameter and the loop variable
        # 22: other.Run — package other defines no Run
        23: {"exact"},  # util.Run: util's directory defines it
        24: {"exact"},  # b.Run with b := &Box{…}: Box's method
    }
    assert _kept(store, "Run", "helper.go") == {4: {"exact"}}  # same package, no import
    # package b defines a Run of its own: its call is that one (a definition of the name)
    assert _kept(store, "Run", "b/b.go") == {3: {"exact"}, 6: {"exact"}}
    # package c defines none and imports nothing: an unqualified Run cannot be a's or b's
    assert _kept(store, "Run", "c/c.go") == {}
    # a receiver whose type the file does not write stays name-only
    assert _kept(store, "Run", "recv.go") == {4: {"exact"}, 8: {"name-only"}}
    # another module's package: its Run is not the project's, but the index cannot tell a
    # module from the project's own path seen without go.mod
    assert _kept(store, "Run", "remote.go") == {6: {"name-only"}}


def test_rust_scopes_use_paths_and_methods(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "rs"
    write(root, "Cargo.toml", '[package]\nname = "rs"\n')
    write(root, "src/lib.rs", RUST_LIB)
    write(root, "src/util.rs", RUST_UTIL)
    write(root, "src/other.rs", RUST_OTHER)
    write(root, "src/mac.rs", RUST_MACRO)
    make_indexer(root, store).index(workers=1)
    assert _kept(store, "run", "src/lib.rs") == {
        1: {"exact"},  # use crate::util::run
        2: {"exact"},  # use crate::util::run as go
        # 3: std's spawn, under another name; 6 and 20: a struct field
        10: {"exact"},  # the method's definition
        # 11: self.run with no call is the field (fields and methods are apart in Rust)
        # 16-18: the closure's parameter and the `if let` binding
        21: {"name-only", "exact"},  # b.run() (receiver not typed), crate::util::run()
        # 23: the local `let run = 2`
    }
    lib = {
        (j.reference.line, j.reference.name)
        for j in judge_references(store, "run", store.find_references("run"))
        if j.reference.path == "src/lib.rs"
    }
    assert (21, "go") in lib  # the alias's use, followed
    # other.rs neither defines, imports nor glob-imports `run`: not the function
    assert _kept(store, "run", "src/other.rs") == {}
    # a macro's body is tokens: kept; `util::run` through `use crate::util`: the function
    assert _kept(store, "run", "src/mac.rs") == {4: {"name-only"}, 8: {"exact"}}


RUST_KINDS = """pub struct Name {
    pub x: i32,
}

pub enum Kind {
    Name { x: i32 },
    Other(Name),
}

pub fn make() -> Kind {
    let _a = Kind::Name { x: 1 };
    Kind::Other(Name { x: 2 })
}
"""


def test_rust_enum_variants_are_not_the_struct_so_named(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "rs"
    write(root, "Cargo.toml", '[package]\nname = "rs"\n')
    write(root, "src/lib.rs", RUST_KINDS)
    make_indexer(root, store).index(workers=1)
    # 6: the variant's declaration; 11: `Kind::Name { … }`, the variant
    assert _kept(store, "Name", "src/lib.rs") == {1: {"exact"}, 7: {"exact"}, 12: {"exact"}}


def test_java_scopes_receivers_and_the_method_namespace(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "java"
    write(root, "com/example/A.java", JAVA_A)
    write(root, "com/example/Base.java", JAVA_BASE)
    write(root, "com/example/Other.java", JAVA_OTHER)
    write(root, "com/example/util/Helper.java", JAVA_HELPER)
    make_indexer(root, store).index(workers=1)
    assert _kept(store, "run", "com/example/A.java") == {
        # 7: a field named run (not the method); 12-13: the loop variable
        10: {"exact"},  # run(1): inherited from Base
        11: {"exact"},  # this.run, h.run (Helper h), Helper.run
        # 15: this.run, the field; 16: the lambda's parameter
        # 18: o.run() — Other neither declares nor inherits run
    }
    helper = _kept(store, "Helper", "com/example/A.java")
    assert helper == {4: {"exact"}, 9: {"exact"}, 11: {"exact"}}
    assert _kept(store, "List", "com/example/A.java") == {}  # the JDK's List
