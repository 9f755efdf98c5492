"""What the check after an applied edit found (``edits.aftercheck``), as the front ends and
headless JSON carry it: ``check`` on a tool result."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ipuaro.domain.base import DomainModel


class SyntaxFinding(DomainModel):
    path: str
    line: int
    column: int
    kind: Literal["error", "missing"]
    """``error``: text the grammar cannot place; ``missing``: a token it expected (a brace)."""
    expected: str = ""
    excerpt: str = ""


class UseSite(DomainModel):
    path: str
    line: int


class BrokenCaller(DomainModel):
    symbol: str
    path: str
    change: Literal["removed", "changed"]
    """``removed`` (gone or renamed) or ``changed`` (its signature)."""
    uses: list[UseSite] = Field(default_factory=list)
    """Uses in other files the change did not update."""
    calls: int = 0


class ImportFinding(DomainModel):
    path: str
    line: int
    source: str
    name: str
    reason: str


class EditCheckReport(DomainModel):
    syntax: list[SyntaxFinding] = Field(default_factory=list)
    may_break: list[BrokenCaller] = Field(default_factory=list)
    imports: list[ImportFinding] = Field(default_factory=list)
    lines: list[str] = Field(default_factory=list)
    """The findings as the model reads them; front ends show them under the diff."""
