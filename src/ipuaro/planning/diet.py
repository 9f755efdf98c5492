"""The context diet: what the app sends the model in one round, cut to fixed limits.

Blocks are files, searches, logs and the environment. Limits (``plan`` config): at most
``max_blocks`` blocks, ``max_file_chars`` per file (head 60 % / tail 40 % with a
``[TRUNCATED N chars]`` marker), ``max_total_chars`` in all. When something must go, the lowest
priority goes first (searches and logs, then the environment, then auto-context files, the
files the model itself asked for last), the latest of a priority before the earlier ones. Every
cut is a sentence that goes to the model (so it can ask again, narrower) and to the user.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

BlockKind = Literal["file", "search", "logs", "env"]

PRIORITY_SEARCH = 0
PRIORITY_ENV = 1
PRIORITY_AUTO_FILE = 2
PRIORITY_REQUESTED_FILE = 3
HEAD_SHARE = 0.6
MIN_FILE_CHARS = 4_000
"""A requested file squeezed by the total limit keeps at least this much."""


@dataclass(frozen=True)
class ContextBlock:
    kind: BlockKind
    title: str
    """``FILE[src/app.py] lines 1-80``, ``SEARCH "Cart" in **/*.py`` …"""
    text: str
    priority: int
    path: str | None = None
    """The project file a ``file`` block shows."""

    def render(self) -> str:
        return f"{self.title}:\n{self.text.rstrip()}\n"


@dataclass(frozen=True)
class DietLimits:
    max_blocks: int = 8
    max_file_chars: int = 20_000
    max_total_chars: int = 120_000


@dataclass
class DietResult:
    blocks: list[ContextBlock]
    cuts: list[str] = field(default_factory=list)
    dropped: int = 0
    truncated: int = 0

    @property
    def total_chars(self) -> int:
        return sum(len(b.text) for b in self.blocks)

    @property
    def files(self) -> int:
        return sum(1 for b in self.blocks if b.kind == "file")


def truncate_middle(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut to at most ``limit`` characters, the marker included: head 60 %, tail
    40 %, ``...[TRUNCATED N chars]...`` between. Returns (text, characters cut); 0 when it
    fitted."""
    if len(text) <= limit:
        return text, 0
    reserve = len(_marker(len(text)))
    keep = max(0, limit - reserve)
    head = int(keep * HEAD_SHARE)
    tail = keep - head
    cut = len(text) - keep
    return f"{text[:head]}{_marker(cut)}{text[len(text) - tail :]}", cut


def _marker(cut: int) -> str:
    return f"\n...[TRUNCATED {cut} chars]...\n"


def apply_diet(blocks: list[ContextBlock], limits: DietLimits) -> DietResult:
    result = DietResult([])
    kept: list[ContextBlock] = []
    for block in blocks:
        if block.kind == "file":
            text, cut = truncate_middle(block.text, limits.max_file_chars)
            if cut:
                result.truncated += 1
                result.cuts.append(
                    f"{block.path}: cut to its first and last lines, {cut:,} chars left out "
                    f"(limit {limits.max_file_chars:,} chars per file; ask for a line range)"
                )
                block = replace(block, text=text)
        kept.append(block)
    while len(kept) > limits.max_blocks:
        dropped = _drop_one(kept)
        result.dropped += 1
        result.cuts.append(f"{dropped.title}: left out ({limits.max_blocks}-block limit)")
    while sum(len(b.text) for b in kept) > limits.max_total_chars:
        excess = sum(len(b.text) for b in kept) - limits.max_total_chars
        victim = _lowest(kept)
        if victim.kind == "file" and victim.priority >= PRIORITY_REQUESTED_FILE:
            room = len(victim.text) - excess
            if room >= MIN_FILE_CHARS:
                text, cut = truncate_middle(victim.text, room)
                kept[kept.index(victim)] = replace(victim, text=text)
                result.truncated += 1
                result.cuts.append(
                    f"{victim.path}: cut by {cut:,} more chars to fit "
                    f"{limits.max_total_chars:,} chars in all"
                )
                continue
        kept.remove(victim)
        result.dropped += 1
        result.cuts.append(
            f"{victim.title}: left out ({limits.max_total_chars:,}-char limit for all context)"
        )
    result.blocks = kept
    return result


def _lowest(blocks: list[ContextBlock]) -> ContextBlock:
    """The block to give up first: lowest priority, the latest of them."""
    lowest = min(b.priority for b in blocks)
    return next(b for b in reversed(blocks) if b.priority == lowest)


def _drop_one(blocks: list[ContextBlock]) -> ContextBlock:
    victim = _lowest(blocks)
    blocks.remove(victim)
    return victim
