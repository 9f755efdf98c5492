"""What a check found about one segment: a verdict and a reason that names the segment."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Finding", "Verdict", "Where"]

Verdict = Literal["allow", "ask", "deny"]


@dataclass(frozen=True)
class Finding:
    verdict: Verdict
    reason: str


@dataclass
class Where:
    """The segment a finding is about, for reasons: its text and what it is nested in."""

    source: str
    context: str

    def tail(self) -> str:
        shown = self.source if len(self.source) <= 100 else self.source[:97] + "..."
        shown = shown.replace("\n", "⏎")
        inside = f" (inside {self.context})" if self.context else ""
        return f" in segment `{shown}`{inside}"

    def nested(self, context: str) -> Where:
        """The same segment, seen from inside ``context`` (``find -exec``, ``bash -c``)."""
        chained = f"{self.context} › {context}" if self.context else context
        return Where(self.source, chained)
