"""``old`` that matches the file except for layout: indentation, trailing spaces, blank lines.

Small models copy code loosely: one blank line where the file has two, a body indented a level
too deep, a trailing space. The lines still say the same thing, so the place is found by the
non-blank lines with their whitespace stripped — and then the model's change is transplanted
onto the file's own layout instead of pasting the model's text over it:

- lines ``new`` keeps from ``old`` are written as the file has them (its indentation, no
  imported trailing spaces, its blank lines around and between them);
- changed and added lines are shifted by the offset between ``old`` and the file only when
  ``new`` is written in ``old``'s frame; when ``new`` already has the file's indentation it is
  kept; their trailing whitespace is dropped;
- where ``old``'s blank lines differ from the file's right at a change (an insertion there, a
  changed blank line), where the change goes would be a guess, and a guess is refused.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from ipuaro.domain.errors import IpuaroError


class LayoutRefused(IpuaroError):
    """The place was found but the change cannot be transplanted without guessing."""


@dataclass(frozen=True)
class Placement:
    first: int
    """Index of the first file line the change replaces."""
    last: int
    """Index of the last one (inclusive)."""
    lines: list[str]
    """What those file lines become."""


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def find_places(file_lines: list[str], old_lines: list[str]) -> list[list[int]]:
    """Every place (non-overlapping) where ``old``'s non-blank lines occur in the file with
    whitespace stripped and blank lines ignored: the file index of each non-blank old line."""
    old_keys = [line.strip() for line in old_lines if line.strip()]
    if not old_keys:
        return []
    file_nb = [j for j, line in enumerate(file_lines) if line.strip()]
    file_keys = [file_lines[j].strip() for j in file_nb]
    size = len(old_keys)
    places: list[list[int]] = []
    t = 0
    while t + size <= len(file_keys):
        if file_keys[t] == old_keys[0] and file_keys[t : t + size] == old_keys:
            places.append(file_nb[t : t + size])
            t += size
        else:
            t += 1
    return places


def transplant(
    file_lines: list[str], old_lines: list[str], new_lines: list[str], place: list[int]
) -> Placement:
    """File lines ``place[0]..place[-1]`` rewritten by the change ``old`` → ``new``; raises
    :class:`LayoutRefused`. ``old_lines`` has no leading or trailing blank line."""
    a = [line.strip() for line in old_lines]
    b = [line.strip() for line in new_lines]
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    placed = _Transplant(file_lines, old_lines, new_lines, place, ops).run()
    # Which ``old`` line a kept ``new`` line answers decides its indentation and blank lines.
    # Repeated lines (``};`` twice) can pair either way; matching from the end shows the other
    # reading, and when the two write different files the choice would be a guess.
    backward = [
        (tag, len(a) - i2, len(a) - i1, len(b) - j2, len(b) - j1)
        for tag, i1, i2, j1, j2 in reversed(
            difflib.SequenceMatcher(a=a[::-1], b=b[::-1], autojunk=False).get_opcodes()
        )
    ]
    if backward != ops:
        try:
            other = _Transplant(file_lines, old_lines, new_lines, place, backward).run()
        except LayoutRefused:
            other = None
        if other != placed:
            raise LayoutRefused(
                "lines that repeat in `old` and `new` pair up more than one way, and the ways "
                "give different files; copy the lines exactly from get_lines into `old` and "
                "`new` (with the file's indentation), or include a line that is unique."
            )
    return placed


class _Transplant:
    def __init__(
        self,
        file_lines: list[str],
        old_lines: list[str],
        new_lines: list[str],
        place: list[int],
        ops: Sequence[tuple[str, int, int, int, int]],
    ) -> None:
        self.file = file_lines
        self.old = old_lines
        self.new = new_lines
        self.nb = [i for i, line in enumerate(old_lines) if line.strip()]
        self.pos = dict(zip(self.nb, place, strict=True))
        self.place = place
        self.ops = ops
        self.kept = [False] * len(old_lines)
        self.inserts: set[int] = set()
        for tag, i1, i2, _j1, _j2 in self.ops:
            if tag == "equal":
                self.kept[i1:i2] = [True] * (i2 - i1)
            elif tag == "insert":
                self.inserts.add(i1)
        # For each old line, the non-blank old lines around its gap.
        self.gap_of: dict[int, tuple[int, int]] = {}
        for prev, nxt in zip(self.nb, self.nb[1:], strict=False):
            for k in range(prev + 1, nxt + 1):
                self.gap_of[k] = (prev, nxt)

    # --- gaps -----------------------------------------------------------------------------

    def _differs(self, prev: int, nxt: int) -> bool:
        return (nxt - prev) != (self.pos[nxt] - self.pos[prev])

    def _whole(self, prev: int, nxt: int) -> bool:
        """Both ends and every blank line between them kept, nothing inserted in between."""
        return all(self.kept[prev : nxt + 1]) and not any(prev < k <= nxt for k in self.inserts)

    def _file_gap(self, prev: int, nxt: int) -> list[str]:
        return self.file[self.pos[prev] + 1 : self.pos[nxt]]

    def _check_gaps(self) -> None:
        differing = [
            (prev, nxt)
            for prev, nxt in zip(self.nb, self.nb[1:], strict=False)
            if self._differs(prev, nxt)
        ]
        if differing and self._changes_blank_lines():
            prev, nxt = differing[0]
            raise LayoutRefused(
                f"`old` has {nxt - prev - 1} blank line(s) between {self.old[prev].strip()!r} "
                f"and {self.old[nxt].strip()!r} where the file has "
                f"{self.pos[nxt] - self.pos[prev] - 1} (lines {self.pos[prev] + 1}-"
                f"{self.pos[nxt] + 1}), and the change adds or removes blank lines, so which "
                "ones would be a guess. Copy the lines exactly from get_lines into `old` and "
                "`new`."
            )
        for prev, nxt in zip(self.nb, self.nb[1:], strict=False):
            if not self._differs(prev, nxt) or self._whole(prev, nxt):
                continue
            inserted = any(prev < k <= nxt for k in self.inserts)
            if inserted or not all(self.kept[prev + 1 : nxt]):
                raise LayoutRefused(
                    f"`old` has {nxt - prev - 1} blank line(s) between "
                    f"{self.old[prev].strip()!r} and {self.old[nxt].strip()!r} where the file "
                    f"has {self.pos[nxt] - self.pos[prev] - 1} (lines {self.pos[prev] + 1}-"
                    f"{self.pos[nxt] + 1}), right where the change goes, so its place would be "
                    "a guess. Copy those lines exactly from get_lines into `old` and `new`."
                )

    def _changes_blank_lines(self) -> bool:
        for tag, i1, i2, j1, j2 in self.ops:
            if tag == "equal":
                continue
            if any(not self.old[i].strip() for i in range(i1, i2)):
                return True
            if any(not self.new[j].strip() for j in range(j1, j2)):
                return True
        return False

    # --- indentation ----------------------------------------------------------------------

    def _shift_changed(self) -> bool:
        """Whether changed lines are in ``old``'s frame (shift them) or the file's (keep)."""
        pairs = [
            (i, j1 + (i - i1))
            for tag, i1, i2, j1, _j2 in self.ops
            if tag == "equal"
            for i in range(i1, i2)
            if self.old[i].strip()
        ]
        if pairs:
            in_file = all(_indent(self.new[j]) == _indent(self.file[self.pos[i]]) for i, j in pairs)
            in_old = all(_indent(self.new[j]) == _indent(self.old[i]) for i, j in pairs)
        else:
            first_new = next((line for line in self.new if line.strip()), "")
            in_file = _indent(first_new) == _indent(self.file[self.place[0]])
            in_old = _indent(first_new) == _indent(self.old[self.nb[0]])
        if in_file:
            return False
        if in_old:
            return True
        raise LayoutRefused(
            "the indentation of `new` fits neither `old` nor the file's lines; send `new` "
            "with the file's indentation (as get_lines shows it)."
        )

    def _placed(self, line: str, i1: int, i2: int, j: int, shift: bool) -> str:
        line = line.rstrip()
        if not line or not shift:
            return line
        ref = min(i1 + j, i2 - 1) if i1 < i2 else i1 - 1 if i1 > 0 else 0
        if not self.old[ref].strip():
            ref = min(self.nb, key=lambda k: abs(k - ref))
        for anchor in (ref, self.nb[0]):
            old_indent = _indent(self.old[anchor])
            if line.startswith(old_indent):
                return _indent(self.file[self.pos[anchor]]) + line[len(old_indent) :]
        return line

    # --- the walk -------------------------------------------------------------------------

    def _kept(self, i: int) -> list[str]:
        if self.old[i].strip():
            if i in self.gap_of and i == self.gap_of[i][1]:
                prev, _ = self.gap_of[i]
                if self._differs(prev, i) and self._whole(prev, i):
                    return [*self._file_gap(prev, i), self.file[self.pos[i]]]
            return [self.file[self.pos[i]]]
        prev, nxt = self.gap_of[i]
        if not self._differs(prev, nxt):
            return [self.file[self.pos[prev] + (i - prev)]]
        if self._whole(prev, nxt) or i != prev + 1:
            return []  # the file's gap goes out once: with the next line, or here
        return self._file_gap(prev, nxt)

    def _boundary_gap(self, prev: int, nxt: int) -> list[str]:
        """The file's blank lines between a kept and a changed line that ``old`` wrote with
        no blank line at all (so no kept blank line carries them)."""
        if nxt == prev + 1 and self._differs(prev, nxt):
            return self._file_gap(prev, nxt)
        return []

    def run(self) -> Placement:
        self._check_gaps()
        shift = self._shift_changed()
        out: list[str] = []
        for tag, i1, i2, j1, j2 in self.ops:
            if tag == "equal":
                for i in range(i1, i2):
                    out.extend(self._kept(i))
                continue
            head = next((i for i in range(i1, i2) if self.old[i].strip()), None)
            if head is not None and head in self.gap_of and self.kept[self.gap_of[head][0]]:
                out.extend(self._boundary_gap(self.gap_of[head][0], head))
            out.extend(self._placed(self.new[j], i1, i2, j - j1, shift) for j in range(j1, j2))
            tail = next((i for i in reversed(range(i1, i2)) if self.old[i].strip()), None)
            if tail is not None and tail != self.nb[-1]:
                nxt = self.gap_of[tail + 1][1]
                if self.kept[nxt]:
                    out.extend(self._boundary_gap(tail, nxt))
        return Placement(self.place[0], self.place[-1], out)
