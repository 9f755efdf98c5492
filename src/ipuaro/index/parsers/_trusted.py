"""Setting a pydantic model's state directly, for the hot loop that builds one model per call
(CallEdges) from values that are valid by construction (references skip models altogether:
``FileIndexes.reference_table``).

This is what ``BaseModel.model_construct`` does, minus its per-call Python overhead: the three
state slots are written through their descriptors. Tests compare the results with validated
models (equality, dump, JSON, fields set), so a pydantic change that breaks this shows up there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from pydantic import BaseModel

Setter = Callable[[object, object], None]


def _slot_setter(name: str) -> Setter:
    setter: Setter | None = getattr(BaseModel.__dict__.get(name), "__set__", None)
    if setter is not None:
        return setter

    def set_attribute(instance: object, value: object) -> None:  # pydantic without slots
        object.__setattr__(instance, name, value)

    return set_attribute


SET_DICT: Final = _slot_setter("__dict__")
SET_FIELDS_SET: Final = _slot_setter("__pydantic_fields_set__")
SET_EXTRA: Final = _slot_setter("__pydantic_extra__")
SET_PRIVATE: Final = _slot_setter("__pydantic_private__")
