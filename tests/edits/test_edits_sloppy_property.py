"""Property: a sloppy `replace` or `edit_file` gives exactly the intended file, or a refusal.

Real source files (the test fixtures, plus a few files of the bench corpora when
``scripts/fetch-corpora`` has cached them), a random edit of a few lines (change, insert, delete),
then the model's arguments perturbed the ways small models do: indentation shifted (with ``new``
following the shift or already at the file's indentation), blank lines dropped or added, trailing
spaces, CRLF, and for ``edit_file`` unchanged lines elided behind a marker. The engines are pure
functions of (file lines, arguments), so a refusal changes nothing by construction; the test
counts apply / refuse / differ and requires differ == 0.
"""

from __future__ import annotations

import difflib
import os
import random
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipuaro.edits.markers import MergeFailed, merge_markers
from ipuaro.edits.matching import MatchError, find_and_replace
from ipuaro.edits.text import Lines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPORA = Path(os.environ.get("IPUARO_CORPORA") or Path.home() / ".cache" / "ipuaro-corpora")
SUFFIXES = {".py", ".ts", ".tsx", ".js"}


def _sources() -> list[tuple[str, list[str]]]:
    paths = sorted(p for p in FIXTURES.rglob("*") if p.suffix in SUFFIXES and p.is_file())
    if CORPORA.is_dir():
        extra = sorted(
            p
            for p in CORPORA.rglob("*")
            if p.suffix in SUFFIXES and p.is_file() and 2_000 < p.stat().st_size < 40_000
        )
        paths += random.Random(17).sample(extra, min(40, len(extra)))
    sources: list[tuple[str, list[str]]] = []
    for path in paths:
        try:
            lines = Lines.of(path.read_text(encoding="utf-8")).lines
        except (UnicodeDecodeError, OSError):
            continue
        if sum(1 for line in lines if line.strip()) >= 6:
            sources.append((path.suffix, lines))
    return sources


SOURCES = _sources()


def _edit(
    data: st.DataObject, *, interior: bool = False
) -> tuple[str, list[str], int, int, list[tuple[str, int | None]]]:
    """A file, a region [start, end) beginning and ending with a non-blank line, and its
    intended replacement: each new line with the region line it was copied from (or None).
    ``interior``: the first and last lines stay (a marker sketch needs them as anchors)."""
    suffix, lines = data.draw(st.sampled_from(SOURCES))
    nonblank = [i for i, line in enumerate(lines) if line.strip()]
    a = data.draw(st.integers(0, len(nonblank) - 4))
    b = data.draw(st.integers(a + 1 + interior, min(a + 8, len(nonblank) - 1)))
    start, end = nonblank[a], nonblank[b] + 1
    region = [(lines[i], i - start) for i in range(start, end)]
    choices = [k for k, (line, _) in enumerate(region) if line.strip()]
    if interior:
        choices = choices[1:-1]
    k = data.draw(st.sampled_from(choices))
    indent = region[k][0][: len(region[k][0]) - len(region[k][0].lstrip())]
    kind = data.draw(st.sampled_from(["change", "insert", "delete"]))
    new: list[tuple[str, int | None]] = list(region)
    if kind == "change":
        new[k] = (indent + "changed_value = " + region[k][0].strip()[:30].rstrip(), None)
    elif kind == "insert":
        new.insert(k + 1, (indent + "inserted_call(1)", None))
    else:
        del new[k]
    return suffix, lines, start, end, new


def _perturb(
    data: st.DataObject, old: list[tuple[str, int | None]], new: list[tuple[str, int | None]]
) -> tuple[list[str], list[str], list[str]]:
    """The model's copy of ``old`` and ``new``, and the names of the perturbations used."""
    used: list[str] = []
    old_lines = [line for line, _ in old]
    new_lines = [line for line, _ in new]
    source = [ref for _, ref in new]
    if data.draw(st.booleans()):
        used.append("blank")
        blank_old = [i for i, line in enumerate(old_lines) if not line.strip()]
        if blank_old and data.draw(st.booleans()):
            drop = data.draw(st.sampled_from(blank_old))  # the model forgot a blank line
            del old_lines[drop]
            if drop in source:
                j = source.index(drop)
                del new_lines[j], source[j]
            source = [r - 1 if r is not None and r > drop else r for r in source]
        else:
            after = data.draw(st.integers(0, len(old_lines) - 2))  # ... or added one
            old_lines.insert(after + 1, "")
            if after in source:
                j = source.index(after)
                new_lines.insert(j + 1, "")
    shift = data.draw(st.sampled_from(["none", "deeper", "shallower"]))
    if shift != "none":
        follows = data.draw(st.booleans())  # does `new` carry the same offset?
        used.append(f"{shift}{'+new' if follows else ''}")

        def moved(line: str) -> str:
            if not line.strip():
                return line
            return "    " + line if shift == "deeper" else line[min(_common(old_lines), 4) :]

        if shift == "shallower" and _common(old_lines) == 0:
            used.pop()
        else:
            old_lines = [moved(line) for line in old_lines]
            if follows:
                new_lines = [moved(line) for line in new_lines]
    if data.draw(st.booleans()):
        used.append("trailing")
        marks = data.draw(st.lists(st.booleans(), min_size=len(old_lines), max_size=len(old_lines)))
        old_lines = [
            line + "  " if m and line.strip() else line
            for line, m in zip(old_lines, marks, strict=True)
        ]
        new_lines = [
            line + " " if line.strip() and data.draw(st.booleans()) else line for line in new_lines
        ]
    return old_lines, new_lines, used


def _verbatim_elsewhere(lines: list[str], old: list[str], start: int) -> bool:
    size = len(old)
    return any(lines[i : i + size] == old for i in range(len(lines) - size + 1) if i != start)


def _common(lines: list[str]) -> int:
    widths = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    return min(widths) if widths else 0


def _replace_case(data: st.DataObject) -> str:
    _suffix, lines, start, end, new = _edit(data)
    intended = lines[:start] + [line for line, _ in new] + lines[end:]
    old = [(lines[i], i - start) for i in range(start, end)]
    old_lines, new_lines, _used = _perturb(data, old, new)
    eol = "\r\n" if data.draw(st.booleans()) else "\n"
    if _verbatim_elsewhere(lines, old_lines, start):
        # The perturbed ``old`` is, word for word, another place of the file (``    }\n}``
        # shifted from ``        }\n    }``): an exact match is what the model wrote, and the
        # tool rightly takes it. Not a sloppy copy of the intended place any more.
        return "verbatim-elsewhere"
    try:
        result = find_and_replace(lines, eol.join(old_lines), eol.join(new_lines))
    except MatchError:
        return "refuse"
    return _verdict(result.lines, intended, f"old={old_lines!r}\nnew={new_lines!r}")


def _marker_case(data: st.DataObject) -> str:
    suffix, lines, start, end, new = _edit(data, interior=True)
    intended = lines[:start] + [line for line, _ in new] + lines[end:]
    keys = [line.strip() for line in lines]
    if keys.count(keys[start]) > 1 or keys.count(keys[end - 1]) > 1:
        return "skipped"  # a sketch locates its chunk by unique anchor lines (the tool says so)
    marker = "# ... existing code ..." if suffix == ".py" else "// ... existing code ..."
    sketch = [line for line, _ in new]
    refs = [ref for _, ref in new]
    # Elide a run of unchanged lines inside the chunk behind a marker; the lines on either
    # side of the marker are unchanged too (each chunk starts and ends with an anchor).
    unchanged = [
        j
        for j in range(2, len(sketch) - 2)
        if refs[j] is not None and refs[j - 1] == refs[j] - 1 and sketch[j - 1].strip()
    ]
    if unchanged and data.draw(st.booleans()):
        j = data.draw(st.sampled_from(unchanged))
        stop = j
        while stop + 2 < len(sketch) - 1 and _next_ref(refs, stop) and stop - j < 3:
            stop += 1
        if not _next_ref(refs, stop) or not sketch[stop + 1].strip():
            return "skipped"
        indent = sketch[j][: len(sketch[j]) - len(sketch[j].lstrip())]
        sketch[j : stop + 1] = [indent + marker]
    if data.draw(st.booleans()):
        sketch = [line + "  " if line.strip() else line for line in sketch]
    text = "\n".join([marker, *sketch, marker])
    if data.draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    try:
        result = merge_markers(lines, text)
    except MergeFailed:
        return "refuse"
    return _verdict(result, intended, f"sketch={text!r}")


def _next_ref(refs: list[int | None], j: int) -> bool:
    """Line ``j + 1`` of the new text is the region line right after line ``j``'s."""
    here, after = refs[j], refs[j + 1]
    return here is not None and after == here + 1


def _verdict(got: list[str], intended: list[str], arguments: str) -> str:
    if got == intended:
        return "apply"
    diff = "\n".join(difflib.unified_diff(intended, got, "intended", "got", lineterm="", n=1))
    raise AssertionError(f"the edit wrote a different file\n{arguments}\n{diff}")


def _census(case: object, examples: int) -> Counter[str]:
    counts: Counter[str] = Counter()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        outcome = case(data)  # type: ignore[operator]
        counts[outcome] += 1
        assert outcome != "differ"

    run()
    return counts


def test_sloppy_replace_gives_the_intended_file_or_a_refusal() -> None:
    counts = _census(_replace_case, 400)
    print(f"\nsloppy replace over {len(SOURCES)} files: {dict(counts)}")
    counts.pop("verbatim-elsewhere", None)
    assert counts["differ"] == 0
    assert counts["apply"] > counts["refuse"]


def test_sloppy_edit_file_gives_the_intended_file_or_a_refusal() -> None:
    counts = _census(_marker_case, 300)
    print(f"\nsloppy edit_file over {len(SOURCES)} files: {dict(counts)}")
    counts.pop("skipped", None)
    assert counts["differ"] == 0
    assert counts["apply"] > 0
