"""A package's names imported at first use (PEP 562), shared by the packages whose ``__init__``
re-exports from heavy modules (``domain``, ``config``, ``edits``, ``index``, ``security``): a
start that never touches a name never imports its module."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` for ``package``: ``name`` comes from the module ``where``
    names (a full dotted name, or a submodule of ``package``), then stays a plain attribute."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        full = module if module.startswith("ipuaro.") else f"{package}.{module}"
        value = getattr(importlib.import_module(full), name)
        setattr(sys.modules[package], name, value)  # the next lookup is a plain attribute
        return value

    return __getattr__
