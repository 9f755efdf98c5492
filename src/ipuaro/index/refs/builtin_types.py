"""Python's built-in and standard-library classes the index never holds, for the reference
judge: what they declare, and which of them a literal or a parameter form makes.

``headers.get(…)`` on a ``dict`` is ``dict.get``, never a project's ``Session.get``: when the
file tells that a receiver is a ``dict`` (``**kwargs``, ``x = {}``, ``x: dict[str, str]``,
``x = dict(…)``), or a project class inherits one (``class CaseInsensitiveDict(MutableMapping)``),
the member comes from the standard library whenever that class declares it. The members are
read from the running interpreter (``dir(dict)``), so they follow the Python version.
"""

from __future__ import annotations

import builtins
import collections
import collections.abc
import functools
import typing
from typing import Final

from tree_sitter import Node

_MODULES: Final = (collections.abc, collections)
_TYPING_ALIASES: Final = {
    "Dict": dict,
    "List": list,
    "Set": set,
    "FrozenSet": frozenset,
    "Tuple": tuple,
    "Type": type,
    "DefaultDict": collections.defaultdict,
    "OrderedDict": collections.OrderedDict,
    "Counter": collections.Counter,
    "Deque": collections.deque,
    "ChainMap": collections.ChainMap,
    "AbstractSet": collections.abc.Set,
    "Text": str,
}
_LITERALS: Final = {
    "dictionary": "dict",
    "dictionary_comprehension": "dict",
    "list": "list",
    "list_comprehension": "list",
    "set": "set",
    "set_comprehension": "set",
    "tuple": "tuple",
    "string": "str",
    "concatenated_string": "str",
}
_CONSTRUCTORS: Final = frozenset(
    {"dict", "list", "set", "frozenset", "tuple", "str", "bytes", "bytearray"}
    | {"defaultdict", "deque", "OrderedDict", "Counter", "ChainMap"}
)


@functools.cache
def builtin_members(name: str) -> frozenset[str] | None:
    """The attributes the built-in or standard-library class ``name`` declares (``dict``,
    ``Mapping``, ``typing.Dict``, ``collections.deque``, ``Exception``), None when ``name`` is
    not one of them (a class of another package: what it declares is unknown)."""
    found = _TYPING_ALIASES.get(name)
    if found is None:
        candidate = getattr(builtins, name, None)
        if not isinstance(candidate, type):
            candidate = next(
                (
                    getattr(module, name)
                    for module in _MODULES
                    if isinstance(getattr(module, name, None), type)
                ),
                None,
            )
        found = candidate
    if found is None or found is typing.Any:
        return None
    return frozenset(dir(found))


def literal_type(value: Node, text: str) -> str | None:
    """The built-in class a Python expression makes, when its form says it: a literal
    (``{}``, ``[…]``, ``"…"``, comprehensions) or a call of a built-in constructor
    (``dict(…)``, ``collections.deque()``); ``text`` is the call's function as written."""
    made = _LITERALS.get(value.type)
    if made is not None:
        return made
    if value.type == "call":
        called = text.rsplit(".", 1)[-1]
        if called in _CONSTRUCTORS and text in (called, f"collections.{called}"):
            return called
    return None


def splat_type(parameter: Node) -> str | None:
    """``**kwargs`` is a ``dict``, ``*args`` a ``tuple``."""
    if parameter.type == "dictionary_splat_pattern":
        return "dict"
    if parameter.type == "list_splat_pattern":
        return "tuple"
    return None
