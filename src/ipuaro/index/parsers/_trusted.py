"""Pydantic models built without validation, for the values the extractors produce: valid by
construction (strings sliced from the source, ints from tree-sitter, literals from tables), one
model per symbol, method or call edge, where ``Model(**values)`` costs more than the extraction.

:func:`trusted` is what ``BaseModel.model_construct`` does, minus its per-call Python overhead:
the state slots are written through their descriptors, defaults and default factories filled,
``model_fields_set`` = the fields given (a fresh set, so ``model_copy(update=…)`` and assignment
work as on a validated model). Fields are passed by their Python names (``from_``, not the alias
``from``). Tests compare the results with validated models (equality, dump, JSON, fields set), so
a pydantic change that breaks this shows up there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

Setter = Callable[[object, object], None]
Model = TypeVar("Model", bound=BaseModel)


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


class SharedFieldsSet(frozenset[str]):
    """One "fields set" for many models of one shape (call edges: a set per edge would cost
    ~200 bytes and a copy each). A copy is a set of its own, so ``model_copy(update=…)`` and
    ``copy.deepcopy`` work as on a validated model; assigning a field does not (pydantic adds
    to the set in place), so such fields are written through ``__dict__``
    (``refs.calls.set_resolved``)."""

    __slots__ = ()

    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: object) -> set[str]:
        return set(self)


_REQUIRED: Final = object()
"""Placeholder of a required field in a plan's template (never left in a built model)."""


@dataclass(frozen=True, slots=True)
class _Plan:
    template: dict[str, object]
    """Every field in declaration order (the order a validated model's ``__dict__`` has),
    defaults filled, required fields ``_REQUIRED``."""
    factories: tuple[tuple[str, Callable[[], object]], ...]
    required: frozenset[str]
    size: int


_NEW: Final = object.__new__
_PLANS: dict[type[BaseModel], _Plan] = {}
"""Per-class plans, each made on the class's first use (a cache: nothing else writes it)."""


def trusted(model: type[Model], /, **values: object) -> Model:
    """``model(**values)`` without validation: ``values`` must already be what validation would
    store (exact types, ``list`` not ``tuple``); an unknown or missing field raises TypeError."""
    plan = _PLANS.get(model) or _plan(model)
    state = plan.template.copy()
    state.update(values)
    size = plan.size
    if len(state) != size or (len(values) != size and not values.keys() >= plan.required):
        raise TypeError(
            f"{model.__name__} has the fields {list(plan.template)}, of which"
            f" {sorted(plan.required)} are required: given {sorted(values)}"
        )
    for name, factory in plan.factories:
        if name not in values:
            state[name] = factory()
    instance = _NEW(model)
    SET_DICT(instance, state)
    SET_FIELDS_SET(instance, set(values))
    SET_EXTRA(instance, None)
    SET_PRIVATE(instance, None)
    return instance


def _plan(model: type[BaseModel]) -> _Plan:
    """What :func:`trusted` needs of ``model``; models it cannot build faithfully are refused."""
    decorators = model.__pydantic_decorators__
    if (
        model.__new__ is not object.__new__
        or model.__private_attributes__
        or model.model_config.get("extra") == "allow"
        or model.model_post_init is not BaseModel.model_post_init
        or decorators.validators
        or decorators.field_validators
        or decorators.root_validators
        or decorators.model_validators
    ):
        raise TypeError(f"{model.__name__} needs validation to be built (validators, extras…)")
    template: dict[str, object] = {}
    factories: list[tuple[str, Callable[[], object]]] = []
    for name, field in model.model_fields.items():
        if field.default_factory is not None:
            if field.default_factory_takes_validated_data:
                raise TypeError(f"{model.__name__}.{name}: a factory taking data needs validation")
            template[name] = None
            factories.append((name, field.default_factory))  # type: ignore[arg-type]
        elif field.default is PydanticUndefined:
            template[name] = _REQUIRED
        else:
            hash(field.default)  # a mutable default would be copied per model by validation
            template[name] = field.default
    required = frozenset(name for name, value in template.items() if value is _REQUIRED)
    plan = _PLANS[model] = _Plan(template, tuple(factories), required, len(template))
    return plan
