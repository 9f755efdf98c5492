"""Base model for every stored type: camelCase on the wire, snake_case in Python."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class DomainModel(BaseModel):
    """Serialised with the concept's camelCase field names (``lineStart``, ``isAsync``…)."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="forbid",
        defer_build=True,
    )

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True)
