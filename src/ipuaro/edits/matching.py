"""``replace``: find ``old`` in a file, most exact strategy first, and never guess.

1. exact: the text occurs once (or ``replace_all``) — applied even when other places match
   with whitespace ignored, unless the match only starts or ends inside a line;
2. whitespace: lines equal once trailing whitespace, indentation and blank lines are ignored —
   the change is transplanted onto the file's own layout (``edits/layout.py``), or refused where
   that would be a guess;
3. fuzzy: a window of lines whose similarity to ``old`` is at least the threshold, applied only
   when exactly one place qualifies and its lines pair up with ``old``'s one to one (a typo in
   a line, never a line more or less).

Everything works on the file's lines joined with ``\\n``; the caller puts the file's own EOL
style back. Failures raise :class:`MatchError` with the closest lines and their numbers.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from ipuaro.domain.errors import IpuaroError
from ipuaro.edits.diffs import numbered
from ipuaro.edits.layout import LayoutRefused, find_places, transplant

Strategy = Literal["exact", "whitespace", "fuzzy"]
MAX_LISTED = 8
FUZZY_MIN_LINES = 2
"""Fuzzy matching needs at least this many non-blank lines in ``old``."""
FIRST_LINE_SIMILARITY = 0.75
AMBIGUITY_MARGIN = 0.05
"""A fuzzy match must beat every other place by this much similarity to count as unique."""


class MatchError(IpuaroError):
    """``old`` could not be placed; the message shows the model what to send instead."""


@dataclass(frozen=True)
class ReplaceResult:
    lines: list[str]
    strategy: Strategy
    count: int
    similarity: float = 1.0


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _trim_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def reindent(new_lines: list[str], old_lines: list[str], window: list[str]) -> list[str]:
    """Give ``new_lines`` the file's indentation where ``old`` matched ``window`` ignoring it
    (models often drop or add a level). New line ``i`` is shifted like old line ``i`` (or the
    last old line), so a snippet sent without any indentation gets each line's own depth."""
    anchors = [j for j, line in enumerate(old_lines) if line.strip()]
    first = anchors[0]
    out: list[str] = []
    for index, line in enumerate(new_lines):
        if not line.strip():
            out.append(line)
            continue
        j = min(index, len(old_lines) - 1)
        if not old_lines[j].strip():
            j = min(anchors, key=lambda a: abs(a - j))
        old_indent, file_indent = _indent(old_lines[j]), _indent(window[j])
        if not line.startswith(old_indent):
            old_indent, file_indent = _indent(old_lines[first]), _indent(window[first])
        if line.startswith(old_indent):
            out.append(file_indent + line[len(old_indent) :])
        else:
            out.append(line)
    return out


def _exact_is_the_only_place(file_lines: list[str], file_text: str, old: str) -> None:
    """An exact match of whole lines that occurs once is applied, whatever other places read
    the same with whitespace ignored (the tool promises it; tolerance is for when there is no
    exact match). One that starts or ends inside a line is trusted only when no whole-line
    place elsewhere reads the same: a model that shifted its copy can hit part of a line."""
    offset = file_text.find(old)
    end = offset + len(old)
    starts_a_line = offset == 0 or file_text[offset - 1] == "\n" or old.startswith("\n")
    ends_a_line = end == len(file_text) or file_text[end] == "\n" or old.endswith("\n")
    if starts_a_line and ends_a_line:
        return
    places = find_places(file_lines, _trim_blank(old.split("\n")))
    line = _line_of(file_text, offset)
    # The exact match may start or end inside a line (``serialize(`` of a longer line), so
    # a whitespace-tolerant place elsewhere is a rival even when it is the only one.
    span = range(line - 1, line + old.count("\n"))
    others = [p[0] + 1 for p in places if p[0] not in span]
    if others:
        where = ", ".join(str(n) for n in others[:MAX_LISTED])
        raise MatchError(
            f"`old` matches line {line} exactly, but the same lines with other indentation "
            f"or blank lines also stand at lines {where}; which one you mean is a guess. "
            "Include more surrounding lines in `old` so it matches once."
        )


def _blank_run(lines: list[str], *, from_end: bool = False) -> int:
    count = 0
    for line in reversed(lines) if from_end else lines:
        if line.strip():
            break
        count += 1
    return count


def _trim_like(new_lines: list[str], old_lines: list[str]) -> list[str]:
    """``new`` without the blank lines at its ends that answer ``old``'s (which are trimmed
    before matching); a blank line ``new`` adds at an end is part of the change."""
    head = min(_blank_run(new_lines), _blank_run(old_lines))
    tail = min(_blank_run(new_lines, from_end=True), _blank_run(old_lines, from_end=True))
    return new_lines[head : len(new_lines) - tail]


def _exact(file_text: str, old: str, new: str, replace_all: bool) -> ReplaceResult | None:
    count = file_text.count(old)
    if count == 0:
        return None
    if count == 1 and not replace_all and file_text.find(old, file_text.find(old) + 1) != -1:
        # Overlapping copies ("x\nx" in "x\nx\nx"): str.count sees one, the file has two.
        count = 2
    if count > 1 and not replace_all:
        offsets: list[int] = []
        start = file_text.find(old)
        while start != -1 and len(offsets) < MAX_LISTED:
            offsets.append(start)
            start = file_text.find(old, start + 1)
        where = ", ".join(str(_line_of(file_text, off)) for off in offsets)
        raise MatchError(
            f"`old` occurs {count} times (starting at lines {where}). Include more surrounding "
            "lines in `old` so it matches once, or set replace_all=true to change every one."
        )
    if not replace_all:
        at = file_text.find(old) + len(old)
        new = _no_new_trailing_space(old, new, line_end=file_text[at : at + 1] in ("", "\n"))
    result = file_text.replace(old, new) if replace_all else file_text.replace(old, new, 1)
    return ReplaceResult(result.split("\n"), "exact", count)


def _no_new_trailing_space(old: str, new: str, *, line_end: bool) -> str:
    """``new`` without trailing whitespace on lines it adds or changes (small models pad
    lines; the file's own lines keep theirs). The last line is trimmed only when the match
    ends at a line end — otherwise the rest of the file's line follows it."""
    kept = set(old.split("\n"))
    lines = new.split("\n")
    for index, line in enumerate(lines):
        last = index == len(lines) - 1
        if line not in kept and (line_end or not last):
            lines[index] = line.rstrip()
    return "\n".join(lines)


def _whitespace(
    lines: list[str], old_lines: list[str], new_lines: list[str], replace_all: bool
) -> ReplaceResult | None:
    keys = [line.strip() for line in lines]
    old_keys = [line.strip() for line in old_lines]
    size = len(old_keys)
    starts: list[int] = []
    i = 0
    while i + size <= len(keys):
        if keys[i] == old_keys[0] and keys[i : i + size] == old_keys:
            starts.append(i)
            i += size  # non-overlapping, like str.replace
        else:
            i += 1
    if not starts:
        return None
    if len(starts) > 1 and not replace_all:
        where = ", ".join(str(s + 1) for s in starts[:MAX_LISTED])
        raise MatchError(
            f"`old` matches {len(starts)} places when indentation is ignored (lines {where}). "
            "Include more surrounding lines so it matches once, or set replace_all=true."
        )
    out = list(lines)
    for start in reversed(starts):
        window = out[start : start + size]
        out[start : start + size] = reindent(new_lines, old_lines, window)
    return ReplaceResult(out, "whitespace", len(starts))


def _layout(lines: list[str], old_lines: list[str], new_lines: list[str]) -> ReplaceResult | None:
    places = find_places(lines, old_lines)
    if not places:
        return None
    if len(places) > 1:
        where = ", ".join(str(p[0] + 1) for p in places[:MAX_LISTED])
        raise MatchError(
            f"`old` matches {len(places)} places when indentation and blank lines are ignored "
            f"(lines {where}). Include more surrounding lines so it matches once, or set "
            "replace_all=true."
        )
    try:
        placed = transplant(lines, old_lines, new_lines, places[0])
    except LayoutRefused as error:
        raise MatchError(str(error)) from None
    out = lines[: placed.first] + placed.lines + lines[placed.last + 1 :]
    return ReplaceResult(out, "whitespace", 1)


@dataclass(frozen=True)
class _Candidate:
    start: int
    score: float


def _fuzzy_candidates(lines: list[str], old_lines: list[str]) -> list[_Candidate]:
    """Score windows of ``len(old_lines)`` lines. Only windows sharing at least one stripped
    line with ``old`` are scored (or every line when ``old`` is a single line), which keeps a
    40K-line file fast."""
    keys = [line.strip() for line in lines]
    old_keys = [line.strip() for line in old_lines]
    size = len(old_keys)
    if size > len(keys):
        return []
    starts: set[int] = set()
    if size == 1:
        starts = set(range(len(keys)))
    else:
        positions: dict[str, list[int]] = {}
        for index, key in enumerate(keys):
            if key:
                positions.setdefault(key, []).append(index)
        for offset, key in enumerate(old_keys):
            for index in positions.get(key, ()):
                start = index - offset
                if 0 <= start <= len(keys) - size:
                    starts.add(start)
        if not starts:
            starts = _similar_first_line(keys, old_keys, size)
    target = "\n".join(old_keys)
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    scored: list[_Candidate] = []
    for start in sorted(starts):
        matcher.set_seq1("\n".join(keys[start : start + size]))
        if matcher.real_quick_ratio() < 0.5 or matcher.quick_ratio() < 0.5:
            continue
        scored.append(_Candidate(start, matcher.ratio()))
    return scored


def _similar_first_line(keys: list[str], old_keys: list[str], size: int) -> set[int]:
    """Windows whose line matching ``old``'s first non-blank line is at least 75 % alike: the
    fallback when no line of ``old`` occurs exactly (each may carry a typo)."""
    offset = next((i for i, key in enumerate(old_keys) if key), 0)
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(old_keys[offset])
    found: set[int] = set()
    for index, key in enumerate(keys):
        start = index - offset
        if not key or not 0 <= start <= len(keys) - size:
            continue
        matcher.set_seq1(key)
        if (
            matcher.real_quick_ratio() >= FIRST_LINE_SIMILARITY
            and matcher.quick_ratio() >= FIRST_LINE_SIMILARITY
            and matcher.ratio() >= FIRST_LINE_SIMILARITY
        ):
            found.add(start)
    return found


def _distinct(candidates: list[_Candidate], size: int) -> list[_Candidate]:
    """Best candidate of each cluster of overlapping windows (a window shifted by one line is
    the same place, not a second one)."""
    best: list[_Candidate] = []
    for cand in sorted(candidates, key=lambda c: -c.score):
        if all(abs(cand.start - other.start) >= size for other in best):
            best.append(cand)
    return best


def _fuzzy(
    lines: list[str], old_lines: list[str], new_lines: list[str], threshold: float
) -> ReplaceResult:
    size = len(old_lines)
    if sum(1 for line in old_lines if line.strip()) < FUZZY_MIN_LINES:
        # One short line that is 90 % alike is usually a different line (`a + b` vs `a * b`).
        raise MatchError(
            _not_found_message(
                lines, old_lines, _fuzzy_candidates(lines, old_lines), threshold, fuzzy=False
            )
        )
    candidates = _fuzzy_candidates(lines, old_lines)
    qualifying = _distinct([c for c in candidates if c.score >= threshold], size)
    if len(qualifying) == 1:
        # A runner-up almost as similar (below the threshold or not) makes the choice a guess.
        rivals = _distinct(candidates, size)
        close_second = [
            c
            for c in rivals
            if c.start != qualifying[0].start and c.score >= qualifying[0].score - AMBIGUITY_MARGIN
        ]
        qualifying += close_second
    if len(qualifying) == 1:
        found = qualifying[0]
        out = list(lines)
        window = out[found.start : found.start + size]
        if not _pairs_up(old_lines, window):
            raise MatchError(
                f"`old` is {found.score:.0%} like lines {found.start + 1}-{found.start + size} "
                "but has a line more or less than they do (lines left out or added), so "
                "replacing them would change lines you did not send. Copy the exact lines "
                "from get_lines into `old`.\n" + numbered(window, found.start + 1)
            )
        out[found.start : found.start + size] = reindent(new_lines, old_lines, window)
        return ReplaceResult(out, "fuzzy", 1, found.score)
    if len(qualifying) > 1:
        where = ", ".join(
            f"{c.start + 1}-{c.start + size} ({c.score:.0%})" for c in qualifying[:MAX_LISTED]
        )
        raise MatchError(
            f"`old` was not found exactly; {len(qualifying)} places are similar (lines {where}). "
            "Not guessing between them: copy the exact lines from get_lines into `old`."
        )
    raise MatchError(_not_found_message(lines, old_lines, candidates, threshold))


def _pairs_up(old_lines: list[str], window: list[str]) -> bool:
    """Each line of ``old`` is a (possibly misspelt) copy of the window line at its position:
    no line left out, none added, blank lines where the file has them."""
    a = [line.strip() for line in old_lines]
    b = [line.strip() for line in window]
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    if any(tag in ("insert", "delete") or i2 - i1 != j2 - j1 for tag, i1, i2, j1, j2 in ops):
        return False
    return all(bool(x) == bool(y) for x, y in zip(a, b, strict=True))


def _not_found_message(
    lines: list[str],
    old_lines: list[str],
    candidates: list[_Candidate],
    threshold: float,
    *,
    fuzzy: bool = True,
) -> str:
    keys = {line.strip() for line in lines}
    missing = next((line for line in old_lines if line.strip() and line.strip() not in keys), None)
    tried = f", not at {threshold:.0%} similarity)." if fuzzy else ")."
    parts = ["`old` was not found in the file (not exactly, not ignoring whitespace" + tried]
    if missing is not None:
        parts.append(f"This line of `old` matches no line of the file: {missing.strip()!r}")
    if candidates:
        best = max(candidates, key=lambda c: c.score)
        window = lines[best.start : best.start + len(old_lines)]
        parts.append(
            f"Closest lines ({best.score:.0%} similar):\n{numbered(window, best.start + 1)}"
        )
    parts.append("Read the current lines with get_lines and copy them exactly into `old`.")
    return "\n".join(parts)


def find_and_replace(
    file_lines: list[str],
    old: str,
    new: str,
    *,
    replace_all: bool = False,
    threshold: float = 0.9,
) -> ReplaceResult:
    """New lines of the file with ``old`` replaced by ``new`` (see the module docstring)."""
    old, new = _normalise(old), _normalise(new)
    if not old.strip():
        raise MatchError(
            "`old` is empty; give the exact text to replace (use create_file or "
            "edit_lines to insert text)."
        )
    if old == new:
        raise MatchError("`old` and `new` are identical; nothing would change.")
    file_text = "\n".join(file_lines)
    exact = _exact(file_text, old, new, replace_all)
    if exact is not None:
        if not replace_all:
            _exact_is_the_only_place(file_lines, file_text, old)
        return exact
    raw_old = old.split("\n")
    old_lines = _trim_blank(raw_old)
    new_lines = new.split("\n")
    if old.endswith("\n") and new.endswith("\n"):
        new_lines = new_lines[:-1]
        raw_old = raw_old[:-1]
    if not new.strip():
        new_lines = []
    elif replace_all:
        new_lines = _trim_blank(new_lines)
    else:
        new_lines = _trim_like(new_lines, raw_old)
    if replace_all:
        tolerant = _whitespace(file_lines, old_lines, new_lines, replace_all)
    else:
        tolerant = _layout(file_lines, old_lines, new_lines)
    if tolerant is not None:
        return tolerant
    return _fuzzy(file_lines, old_lines, new_lines, threshold)
