"""Models built without validation (``_trusted``) are the models validation would build."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, field_validator

from ipuaro.domain.base import DomainModel
from ipuaro.domain.files import (
    ClassInfo,
    ExportInfo,
    FileAST,
    FunctionInfo,
    ImportInfo,
    MethodInfo,
    PropertyInfo,
    TypeInfo,
)
from ipuaro.domain.indexes import CallEdge, FileIndexes, SymbolDef
from ipuaro.index.parsers import parse_source
from ipuaro.index.parsers._trusted import trusted

from .support import parse_fixture

TRUSTED_MODELS: list[type[DomainModel]] = [
    SymbolDef,
    ImportInfo,
    ExportInfo,
    FunctionInfo,
    MethodInfo,
    PropertyInfo,
    ClassInfo,
    TypeInfo,
    FileAST,
    FileIndexes,
    CallEdge,
]
"""Every model the parsers build with ``trusted`` (CallEdge: ``_bulk.calls`` writes the same
state inline)."""


def _values(annotation: Any) -> st.SearchStrategy[Any]:
    """Values a field of this type holds after validation (the exact types validation stores)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (types.UnionType, typing.Union):
        return st.one_of(*(_values(arg) for arg in args))
    if origin is list:
        return st.lists(_values(args[0]), max_size=2)
    if origin is dict:
        return st.dictionaries(_values(args[0]), _values(args[1]), max_size=2)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return st.deferred(lambda: _instances(annotation))
    simple: dict[object, st.SearchStrategy[Any]] = {
        str: st.text(max_size=8),
        int: st.integers(),
        bool: st.booleans(),
        type(None): st.none(),
    }
    return simple[annotation]


def _arguments(model: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for ``model``: every required field, any subset of the others."""
    required = {n: _values(f.annotation) for n, f in model.model_fields.items() if f.is_required()}
    optional = {
        n: _values(f.annotation) for n, f in model.model_fields.items() if not f.is_required()
    }
    return st.fixed_dictionaries(required, optional=optional)


def _instances(model: type[BaseModel]) -> st.SearchStrategy[BaseModel]:
    """Nested models built either way, as the parsers nest trusted models in trusted ones."""
    return _arguments(model).flatmap(
        lambda values: st.sampled_from([model(**values), trusted(model, **values)])
    )


def assert_same(built: BaseModel, validated: BaseModel) -> None:
    assert built == validated
    assert built.model_dump() == validated.model_dump()
    assert built.model_dump_json(by_alias=True) == validated.model_dump_json(by_alias=True)
    assert built.model_dump_json(exclude_unset=True) == validated.model_dump_json(
        exclude_unset=True
    )
    assert built.model_fields_set == validated.model_fields_set
    assert list(built.__dict__) == list(validated.__dict__)
    assert repr(built) == repr(validated)


@pytest.mark.parametrize("model", TRUSTED_MODELS, ids=lambda model: model.__name__)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_trusted_model_equals_the_validated_one(model: type[DomainModel], data: Any) -> None:
    values = data.draw(_arguments(model))
    assert_same(trusted(model, **values), model(**values))


@pytest.mark.parametrize("model", TRUSTED_MODELS, ids=lambda model: model.__name__)
def test_trusted_model_behaves_like_a_validated_one_after_it_is_built(
    model: type[DomainModel],
) -> None:
    values = {n: _example(f.annotation) for n, f in model.model_fields.items() if f.is_required()}
    built, validated = trusted(model, **values), model(**values)
    first = next(iter(model.model_fields))
    update = {first: getattr(validated, first)}
    assert_same(built.model_copy(update=update), validated.model_copy(update=update))
    setattr(built, first, getattr(validated, first))
    setattr(validated, first, getattr(validated, first))
    assert_same(built, validated)
    factories = [n for n, f in model.model_fields.items() if f.default_factory is not None]
    again = trusted(model, **values)
    for name in factories:  # a default factory runs per model, as in validation
        assert getattr(again, name) is not getattr(built, name)


def _example(annotation: Any) -> Any:
    return {str: "x", int: 1}.get(annotation) or typing.get_args(annotation)[0]


def test_every_parsed_model_equals_the_validated_one() -> None:
    """The parsers give ``trusted`` exactly what validation would store (lists, not tuples)."""
    files = [
        parse_fixture("models.py.txt"),
        parse_fixture("helpers.py.txt"),
        parse_fixture("spans.ts"),
        parse_fixture("module.ts"),
        parse_fixture("components.tsx"),
        parse_fixture("langs/Library.java"),  # the tags reader
        parse_fixture("langs/shapes.go"),
        parse_source("a.py", "import os\nfrom . import x as y\n__all__ = ['f']\ntype T = int\n"),
    ]
    seen_models: list[BaseModel] = []
    for parsed in files:
        for model in [parsed.ast, parsed.indexes, *_nested(parsed.ast), *_nested(parsed.indexes)]:
            seen_models.append(model)
            # every field, not the fields set: the readers append methods after building a class
            validated = type(model)(
                **{name: getattr(model, name) for name in type(model).model_fields}
            )
            assert model == validated
            assert model.to_json() == validated.to_json()
            assert repr(model) == repr(validated)
    assert set(TRUSTED_MODELS) - {type(model) for model in seen_models} == set()


def _nested(model: BaseModel) -> Iterator[BaseModel]:
    for value in model.__dict__.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, BaseModel):
                yield item
                yield from _nested(item)


def test_parsed_call_edges_take_a_path_update() -> None:
    """The Redis store re-homes a file's entries with ``model_copy(update={"path": …})``."""
    edge = parse_source("a.py", "f()\n").indexes.calls[0]
    moved = edge.model_copy(update={"path": "b.py"})
    assert (moved.path, edge.path) == ("b.py", "a.py")
    assert moved.model_fields_set == {"path", "caller", "callee", "line"}
    assert edge.model_copy(deep=True) == edge
    assert moved.model_copy(update={"resolved": "c.py"}).resolved == "c.py"


def test_fields_are_given_by_name_and_checked() -> None:
    built = trusted(ImportInfo, name="y", from_="m", line=1, type="external")
    assert built.to_json() == ImportInfo(name="y", from_="m", line=1, type="external").to_json()
    with pytest.raises(TypeError, match=r"ImportInfo has the fields .*'from_'.*given"):
        trusted(ImportInfo, **{"name": "y", "from": "m", "line": 1, "type": "external"})
    with pytest.raises(TypeError, match=r"\['kind', 'line', 'name', 'path'\] are required"):
        trusted(SymbolDef, name="f", path="a.py", kind="function")
    with pytest.raises(TypeError, match="SymbolDef has the fields"):
        trusted(SymbolDef, name="f", path="a.py", line=1, kind="function", colour="red")


class _Checked(BaseModel):
    name: str

    @field_validator("name")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()


def test_models_that_need_validation_are_refused() -> None:
    with pytest.raises(TypeError, match="_Checked needs validation"):
        trusted(_Checked, name=" x ")
