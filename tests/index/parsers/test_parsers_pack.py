"""The grammars taken from ``tree-sitter-language-pack`` 0.13.0: pinned to the release that
ships them inside the wheel, loaded only when a file of theirs is parsed, and never touching
the network (1.x downloads grammars on first use; that must never happen)."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import pytest

from ipuaro.index.parsers._languages import LANGUAGES, PACK

PACKED = sorted(name for name, spec in LANGUAGES.items() if spec.package == PACK)

# Every way Python opens a connection fails; then the pack is imported and the grammar parses.
_NO_NETWORK = """
import socket, sys
def refuse(*args, **kwargs):
    raise OSError("network access attempted")
socket.socket.__init__ = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from ipuaro.index.parsers import parse_source
from ipuaro.index.parsers._languages import LANGUAGES
name = sys.argv[1]
parsed = parse_source("a" + LANGUAGES[name].extensions[0], "x\\n")
print(parsed.ast.language, "tree_sitter_language_pack" in sys.modules)
"""


def test_the_pack_is_the_release_with_grammars_inside() -> None:
    assert metadata.version(PACK) == "0.13.0"
    requirements = metadata.requires("ipuaro") or []
    assert f"{PACK}==0.13.0" in [r.replace(" ", "") for r in requirements]


def test_the_packed_languages() -> None:
    assert PACKED, "no language comes from the pack"
    assert set(PACKED) == {
        *("dart", "r", "clojure", "elm", "d", "racket", "elisp", "gleam", "pony"),
        *("properties", "udev", "chatito"),
    }


@pytest.mark.parametrize("name", PACKED)
def test_each_packed_grammar_loads_with_sockets_refused(name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", _NO_NETWORK, name],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [name, "True"]


def test_parsing_other_languages_never_imports_the_pack() -> None:
    code = (
        "import sys\nfrom ipuaro.index.parsers import parse_source\n"
        "parse_source('a.go', 'package a\\n')\n"
        "print('tree_sitter_language_pack' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
