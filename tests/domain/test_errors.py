"""Every exception ipuaro defines has one root, ``IpuaroError``, and appears in the tree its
module docstring draws."""

from __future__ import annotations

import importlib
import pkgutil

import ipuaro
from ipuaro.domain import errors
from ipuaro.domain.errors import IpuaroError

# Modules that also run as scripts under ``python -I -S``: ipuaro cannot be imported there.
STANDALONE = {"LandlockError", "_Stop"}


def _ipuaro_exceptions() -> list[type[BaseException]]:
    for info in pkgutil.walk_packages(ipuaro.__path__, "ipuaro."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            importlib.import_module(info.name)
    found: list[type[BaseException]] = []
    pending: list[type[BaseException]] = [BaseException]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith("ipuaro.") and cls not in found:
            found.append(cls)
    return found


def test_every_exception_class_has_the_one_root() -> None:
    classes = _ipuaro_exceptions()
    assert len(classes) > 50  # the walk found the package's classes, not an empty list
    stray = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in classes
        if not issubclass(cls, IpuaroError) and cls.__name__ not in STANDALONE
    )
    assert stray == [], f"subclass ipuaro.domain.errors.IpuaroError (keep any builtin too): {stray}"


def test_the_docstring_draws_every_exception_class() -> None:
    tree = errors.__doc__ or ""
    missing = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in _ipuaro_exceptions()
        if cls.__name__ not in tree
    )
    assert missing == [], f"add these to the tree in ipuaro/domain/errors.py: {missing}"


def test_the_standalone_scripts_stay_outside_and_keep_their_builtin() -> None:
    from ipuaro.security.sandboxing import landlock

    assert issubclass(landlock.LandlockError, OSError)
    assert not issubclass(landlock.LandlockError, IpuaroError)
