# ruff: noqa: E501  (each mutant quotes a source line verbatim)
"""By-hand mutation run over the tool-call parser and the edit matcher (issue 17 §7).

Not a benchmark: each mutant below is one deliberate bug (a guard removed, a comparison
loosened). The script copies ``src`` and ``tests`` to a temporary folder (the checkout is never
touched), applies one mutant there at a time, runs the tests that pin that module against the
copy, and counts a mutant the tests do not catch as surviving. Run from the repository root:

    python bench/mutants.py            # every mutant
    python bench/mutants.py parser     # only the parser's

Prints one line per mutant and the count of survivors.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ipuaro"
PARSER_TESTS = ["tests/llm/test_llm_toolcalls.py", "tests/llm/test_llm_framing.py"]
MATCHER_TESTS = [
    "tests/edits/test_edits_matching.py",
    "tests/edits/test_edits_layout.py",
    "tests/edits/test_edits_markers.py",
    "tests/edits/test_edits_sloppy_property.py",
]


@dataclass(frozen=True)
class Mutant:
    group: str
    file: str
    old: str
    new: str
    what: str


M = Mutant
MUTANTS = [
    # --- llm/toolcalls.py and llm/framing.py ---------------------------------------------
    M(
        "parser",
        "llm/toolcalls.py",
        '        if not explicit and name_key == "name":\n            return\n',
        "",
        "flat {name, path} JSON in prose becomes a call",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        '    if not values:\n        return values, "the block is empty", i\n',
        "",
        "an empty <tool_call></tool_call> is dropped silently",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        '{"", "json", "jsonc"',
        '{"", "jsonc"',
        "```json fences are not read",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        "            scan.blocked.append(match.span())  # code examples",
        "            pass  # code examples",
        "code fences in other languages are not blocked",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        'if not name or action.group("name").strip().lower() in _NOT_A_TOOL:',
        "if not name:",
        "ReAct `Action: Final Answer` is a call",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        "    if name not in scan.allowed:\n        found.errors.append(_unknown_tool(name, scan.text[found.start : found.end]))\n        return\n",
        "",
        "a tag naming an unoffered tool is read as a call",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        "        strict_shape = set(rest) == {args_key}",
        "        strict_shape = True",
        "any JSON with a name and arguments key is an unknown-tool error",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        "    if loose:\n        return next(",
        "    if False:\n        return next(",
        "an unreadable <tool_call> body names no tool",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        "            scan.blocked.append((observation.start(), len(text)))\n",
        "",
        "a hallucinated Observation: stays",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        "    extra = [c for c in parsed.calls if _call_key(c) not in seen]",
        "    extra = list(parsed.calls)",
        "a native call repeated in the text runs twice",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        "        if json_end is not None:\n            found.end = json_end\n",
        "",
        "prose after an unclosed tag's JSON is swallowed",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        "        if not _CALL_HINT.search(window) or (",
        "        if (",
        "any JSON object in prose is parsed as a possible call",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        "    if arguments is None:\n        arguments = {}\n",
        "",
        "null arguments are an error",
    ),
    M(
        "parser",
        "llm/toolcalls.py",
        '_IGNORED_KEYS = frozenset({"id", "type", "index", "call_id"})',
        "_IGNORED_KEYS: frozenset[str] = frozenset()",
        "id/type keys become arguments",
    ),
    M(
        "parser",
        "llm/framing.py",
        "    return _WHOLE_REPLY.search(prose) is not None",
        "    return False",
        "'I am not calling anything now' is ignored",
    ),
    M(
        "parser",
        "llm/framing.py",
        "        _TRAILER.search(trailer(after)) is not None",
        "        False",
        "'this is just an example' after a call is ignored",
    ),
    M(
        "parser",
        "llm/framing.py",
        '    return paragraphs[-1] if paragraphs else ""',
        "    return text",
        "the whole prose before a call counts as its lead-in",
    ),
    M(
        "parser",
        "llm/framing.py",
        '            r"\\bfor (?:example|instance)\\b",\n',
        "",
        "'for example' is not an example cue",
    ),
    # --- edits/matching.py, edits/layout.py, edits/markers.py ----------------------------------
    M(
        "matcher",
        "edits/matching.py",
        "    if count > 1 and not replace_all:",
        "    if count > 2 and not replace_all:",
        "two exact copies: the first is replaced",
    ),
    M(
        "matcher",
        "edits/matching.py",
        "        count = 2\n",
        "        count = 1\n",
        "overlapping exact copies count as one",
    ),
    M(
        "matcher",
        "edits/matching.py",
        "            _exact_is_the_only_place(file_lines, file_text, old)\n",
        "            pass\n",
        "an exact match that another indentation also reads is trusted",
    ),
    M(
        "matcher",
        "edits/matching.py",
        '    kept = set(old.split("\\n"))',
        "    return new\n    kept = set()",
        "new's trailing spaces are imported on an exact match",
    ),
    M(
        "matcher",
        "edits/matching.py",
        "        if not _pairs_up(old_lines, window):",
        "        if False:",
        "fuzzy replaces a window with a line more or less",
    ),
    M(
        "matcher",
        "edits/matching.py",
        "AMBIGUITY_MARGIN = 0.05",
        "AMBIGUITY_MARGIN = 0.0",
        "a fuzzy runner-up almost as similar is ignored",
    ),
    M(
        "matcher",
        "edits/matching.py",
        "FUZZY_MIN_LINES = 2",
        "FUZZY_MIN_LINES = 1",
        "one-line olds are matched fuzzily",
    ),
    M(
        "matcher",
        "edits/matching.py",
        "    if len(places) > 1:\n        where",
        "    if len(places) > 2:\n        where",
        "two layout-tolerant places: the first is used",
    ),
    M(
        "matcher",
        "edits/layout.py",
        "        if differing and self._changes_blank_lines():",
        "        if False:",
        "blank lines changed next to a layout difference are guessed",
    ),
    M(
        "matcher",
        "edits/layout.py",
        "        if in_file:\n            return False",
        "        if False:\n            return False",
        "new already at the file's indentation is shifted again",
    ),
    M(
        "matcher",
        "edits/layout.py",
        "        line = line.rstrip()\n        if not line or not shift:",
        "        if not line or not shift:",
        "changed lines keep the model's trailing spaces",
    ),
    M(
        "matcher",
        "edits/layout.py",
        "            if inserted or not all(self.kept[prev + 1 : nxt]):",
        "            if False:",
        "an insertion where blank lines differ is placed by guess",
    ),
    M(
        "matcher",
        "edits/markers.py",
        "    if agreeing:\n        found = agreeing\n",
        "",
        "a chunk head is chosen ignoring relative indentation",
    ),
    M(
        "matcher",
        "edits/markers.py",
        "        out.extend(region.get(line.rstrip(), line.rstrip()) for line in chunk.lines)",
        "        out.extend(chunk.lines)",
        "sketch lines keep their padding",
    ),
    M(
        "matcher",
        "edits/markers.py",
        "    similar = _rewrites(new_keys, neighbours)\n    if similar is not None:",
        "    similar = _rewrites(new_keys, neighbours)\n    if False:",
        "a rewrite next to an anchor is inserted and both kept",
    ),
    M(
        "matcher",
        "edits/markers.py",
        "        if inside:\n            return min(inside)",
        "        if False:\n            return min(inside)",
        "a closing line is chosen by the head's block end only",
    ),
]


def run(mutant: Mutant, copy: Path) -> bool:
    """True when the tests catch the mutant (applied to the copy at ``copy``)."""
    path = copy / "src" / "ipuaro" / mutant.file
    original = path.read_text(encoding="utf-8")
    if original.count(mutant.old) != 1:
        raise SystemExit(
            f"mutant {mutant.what!r}: its text occurs {original.count(mutant.old)} times in {mutant.file}"
        )
    tests = PARSER_TESTS if mutant.group == "parser" else MATCHER_TESTS
    try:
        path.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
            cwd=copy,
            env={**os.environ, "PYTHONPATH": f"{copy / 'src'}{os.pathsep}{copy}"},
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        path.write_text(original, encoding="utf-8")
    return done.returncode != 0


def main() -> None:
    only = sys.argv[1] if len(sys.argv) > 1 else None
    chosen = [m for m in MUTANTS if only is None or m.group == only]
    survivors: list[Mutant] = []
    started = time.perf_counter()
    copy = Path(tempfile.mkdtemp(prefix="ipuaro-mutants-"))
    shutil.copytree(SRC.parent, copy / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests", copy / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    for mutant in chosen:
        caught = run(mutant, copy)
        print(
            f"{'caught  ' if caught else 'SURVIVED'} {mutant.group:8} {mutant.file:18} {mutant.what}"
        )
        if not caught:
            survivors.append(mutant)
    shutil.rmtree(copy, ignore_errors=True)
    elapsed = time.perf_counter() - started
    print(
        f"{len(chosen)} mutants, {len(chosen) - len(survivors)} caught, {len(survivors)} survived ({elapsed:.0f} s)"
    )


if __name__ == "__main__":
    main()
