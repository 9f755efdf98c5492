"""A reply that repeats itself is cut while it streams, not when the window is full.

Small models fall into loops: the same line, paragraph or JSON fragment again and again until
the reply cap or the context window stops them — 395 s of a plan reply in one report. A reply
is a runaway when its end is one piece of text repeated exactly: at least :data:`MIN_REPEATS`
times and over at least :data:`MIN_SPAN` characters (so a ruler of ``=`` or a short table of
equal rows is never cut). Code that repeats with a difference (numbered cases, other names) is
not periodic and is never cut.

The check runs every :data:`CHECK_EVERY` characters on the last :data:`TAIL` characters: the
last 32 characters are looked up once backwards, which gives the only period worth testing.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_REPEATS = 8
MIN_SPAN = 1000
"""Characters the repetition must cover: ~250 tokens."""
MAX_PERIOD = 600
"""Longest repeated piece recognised (a paragraph or a block of JSON)."""
CHECK_EVERY = 64
PROBE = 32
TAIL = MAX_PERIOD * (MIN_REPEATS + 1) + PROBE


@dataclass(frozen=True)
class Runaway:
    period: int
    """Length in characters of the repeated piece."""
    repeats: int
    """Whole repetitions at the end of the reply."""
    piece: str
    keep: int
    """Characters of the reply to keep: everything before the second copy."""

    def describe(self) -> str:
        shown = " ".join(self.piece.split())
        shown = shown if len(shown) <= 60 else shown[:57] + "…"
        return (
            f"the reply was cut: it repeated the same {self.period} characters "
            f"{self.repeats} times ({shown!r})"
        )


class RunawayDetector:
    """Fed the streamed text; says when the reply has become a loop."""

    def __init__(self) -> None:
        self._tail = ""
        self._total = 0
        self._since_check = 0

    def feed(self, delta: str) -> Runaway | None:
        self._total += len(delta)
        self._tail = (self._tail + delta)[-TAIL:]
        self._since_check += len(delta)
        if self._since_check < CHECK_EVERY:
            return None
        self._since_check = 0
        return self._check()

    def _check(self) -> Runaway | None:
        tail = self._tail
        if len(tail) < MIN_SPAN + PROBE:
            return None
        probe = tail[-PROBE:]
        earlier = tail.rfind(probe, 0, len(tail) - 1)
        if earlier < 0:
            return None
        period = len(tail) - PROBE - earlier
        if period > MAX_PERIOD:
            return None
        span = max(period * MIN_REPEATS, MIN_SPAN)
        if len(tail) < span + period or tail[-span:] != tail[-span - period : -period]:
            return None
        covered = span + period
        while covered + period <= len(tail) and (
            tail[-covered - period : -covered] == tail[-period:]
        ):
            covered += period
        repeats = covered // period
        start_in_tail = len(tail) - covered
        keep = self._total - len(tail) + start_in_tail + period
        return Runaway(period, repeats, tail[-period:], keep)


def cut_advice(finish_reason: str, setting: str) -> str:
    """What the user can do about a reply that was cut (``AssistantReply.cut``); ``setting``
    names the cap that applies (``llm.maxReplyTokens``, ``plan.maxReplyTokens``)."""
    if finish_reason == "runaway":
        return "The model fell into a loop; ask again in other words, or use a larger model."
    return f"Ask for a smaller piece of work, or raise {setting}."
