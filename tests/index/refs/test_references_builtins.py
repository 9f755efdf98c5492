"""The reference judge on Python receivers the file shows to be built-in objects: a member
the standard library's class declares (``dict.get``) is not the project's method so named
(requests: ``kwargs.get``, ``CaseInsensitiveDict().get`` against ``Session.get``)."""

from __future__ import annotations

from pathlib import Path

from ipuaro.index.refs.builtin_types import builtin_members
from ipuaro.index.refs.references import judge_references
from ipuaro.store.sqlite import SqliteStore
from tests.index.conftest import make_indexer, write

SESSIONS_PY = """from collections.abc import MutableMapping


class Session:
    def get(self, url):
        return url

    def send(self, request):
        return request


class CaseInsensitiveDict(MutableMapping):
    pass


class Jar:
    def get(self, name, default=None):
        return default
"""

USES_PY = """from typing import Optional

from .sessions import CaseInsensitiveDict, Jar, Session


def handle(r, headers: dict[str, str], maybe: Optional[Session], plain: Session | None, **kwargs):
    found = kwargs.get("timeout")
    table = {}
    table.get("a")
    listed = dict(a=1)
    listed.get("b")
    cid = CaseInsensitiveDict()
    cid.get("spam")
    jar = Jar()
    jar.get("c")
    headers.get("d")
    maybe.get("e")
    plain.get("f")
    r.get("g")
    text = "x"
    text.send
    kwargs.send
    return found, Session().get("h")


class Adapter:
    def __init__(self):
        self.pool = {}

    def use(self):
        return self.pool.get("i")
"""


def _lines(store: SqliteStore, name: str) -> dict[int, str]:
    refs = store.find_references(name, "pkg/uses.py")
    return {j.reference.line: j.confidence for j in judge_references(store, name, refs)}


def test_members_of_built_in_receivers_are_the_standard_librarys(
    tmp_path: Path, store: SqliteStore
) -> None:
    root = tmp_path / "project"
    write(root, "pkg/__init__.py", "")
    write(root, "pkg/sessions.py", SESSIONS_PY)
    write(root, "pkg/uses.py", USES_PY)
    make_indexer(root, store).index(workers=1)
    assert _lines(store, "get") == {
        # 7 kwargs.get, 9 {}.get, 11 dict().get, 13 a MutableMapping's get, 16 dict[…]'s get,
        # 32 self.pool = {}: the standard library's `get`, left out
        15: "exact",  # Jar overrides dict.get
        17: "exact",  # Optional[Session]
        18: "exact",  # Session | None
        19: "name-only",  # r: unknown
        23: "exact",  # Session().get
    }
    # str and dict declare no `send`: such a receiver is no Session either
    assert _lines(store, "send") == {}


def test_built_in_members_come_from_the_running_interpreter() -> None:
    assert builtin_members("dict") is not None and "get" in (builtin_members("dict") or ())
    assert "get" in (builtin_members("Mapping") or ())
    assert "appendleft" in (builtin_members("deque") or ())
    assert "get" not in (builtin_members("List") or ())
    assert builtin_members("Session") is None  # not the standard library's
    assert builtin_members("Any") is None


def test_a_class_overriding_the_library_member_keeps_its_uses(
    tmp_path: Path, store: SqliteStore
) -> None:
    """requests' ``LookupDict(dict).get`` overrides ``dict.get``: a ``dict``'s ``get`` may be
    it (jedi and the language servers count the base member's uses as the override's)."""
    root = tmp_path / "project"
    write(root, "pkg/__init__.py", "")
    write(root, "pkg/sessions.py", SESSIONS_PY.replace("class Jar:", "class Jar(dict):"))
    write(root, "pkg/uses.py", USES_PY)
    make_indexer(root, store).index(workers=1)
    lines = _lines(store, "get")
    assert lines[7] == "name-only" and lines[9] == "name-only"  # kwargs.get, {}.get
    assert lines[15] == "exact"  # jar.get


def test_a_name_bound_to_a_module_is_not_the_function_so_named(
    tmp_path: Path, store: SqliteStore
) -> None:
    """attrs: ``import attrs`` and ``attrs.define`` are the package, not ``attr.attrs``."""
    root = tmp_path / "project"
    write(root, "src/attr/__init__.py", "from ._make import attrs\n")
    write(root, "src/attr/_make.py", "def attrs(cls):\n    return cls\n")
    write(root, "src/attrs/__init__.py", "from attr import attrs as define\n")
    write(
        root,
        "bench/use.py",
        "import attr\nimport attrs\n\n\n@attrs.define\nclass A:\n    pass\n\n\n"
        "@attr.attrs\nclass B:\n    pass\n",
    )
    write(root, "bench/other.py", "from attrs import define\n\n\n@define\nclass C:\n    pass\n")
    make_indexer(root, store).index(workers=1)
    refs = store.find_references("attrs")
    judged = {
        (j.reference.path, j.reference.line)
        for j in judge_references(store, "attrs", refs)
        if j.reference.name == "attrs"
    }
    assert ("bench/use.py", 10) in judged  # attr.attrs: the function
    assert ("bench/use.py", 2) not in judged and ("bench/use.py", 5) not in judged
    assert ("bench/other.py", 1) not in judged  # `from attrs import …`: the package
    assert ("src/attr/_make.py", 1) in judged and ("src/attr/__init__.py", 1) in judged
