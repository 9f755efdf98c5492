"""Small pieces both store backends use: value encoding, folder matching, the rebuild hint."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from ipuaro.store.protocol import StoreError

REBUILD_HINT = "run `ipuaro index --rebuild` to recreate the index"


def encode_json(value: Any, what: str) -> str:
    """JSON text for a project index or config value (pydantic models and sets allowed)."""

    def default(obj: Any) -> Any:
        if isinstance(obj, BaseModel):
            return obj.model_dump(mode="json", by_alias=True)
        if isinstance(obj, set | frozenset):
            return sorted(obj)
        raise TypeError(f"{type(obj).__name__} is not JSON-serialisable")

    try:
        return json.dumps(value, default=default, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise StoreError(f"cannot store {what}: {err}") from err


def folder_of(prefix: str | None) -> str | None:
    """The folder or file a ``path`` filter names; None when it means the whole project."""
    if prefix is None:
        return None
    folder = prefix.strip("/")
    return None if folder in ("", ".") else folder


def in_folder(path: str, prefix: str | None) -> bool:
    """``path`` is the file ``prefix`` or lies under the folder ``prefix``."""
    folder = folder_of(prefix)
    return folder is None or path == folder or path.startswith(folder + "/")


def path_range(folder: str) -> tuple[str, str, str]:
    """``(exact, low, high)`` for SQL: a path equals ``exact`` or lies in ``[low, high)``.

    ``'0'`` is the character after ``'/'``, so ``high`` bounds every ``folder/...`` path."""
    return folder, f"{folder}/", f"{folder}0"


def first_line(err: Exception) -> str:
    text = str(err)
    return text.splitlines()[0] if text else type(err).__name__
