"""``/eval``: check what the last answer cites against the index, then let the model critique
its answer with that evidence.

Citations are read from the answer's text: paths (``src/auth/login.ts``, with ``:12`` or
``:12-30`` or a following "line 12"/"lines 12-30"), and code names in backticks (``login``,
``AuthManager.verify()``). Each is checked in the store — the file exists, the lines are inside
it, the name has a definition — and the findings become the evidence of the critique prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ipuaro.core.reports import Finding

if TYPE_CHECKING:
    from ipuaro.core.ports import CommandHost
    from ipuaro.core.reports import Evaluation
    from ipuaro.store.protocol import Store

_PATH = re.compile(
    r"(?<![\w/.@-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})"
    r"(?::(\d+)(?:[-–](\d+))?)?"
    r"(?:\s*\(?\s*lines?\s+(\d+)(?:\s*[-–]\s*(\d+))?)?",
)
_SYMBOL = re.compile(r"`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\([^`]*\))?`")
"""A code name in backticks, alone or called: ``total``, ``Cart.total()``, ``tax(amount)``."""
_BARE_CALL = re.compile(r"(?<![\w.`/-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(\)")
"""A call written in prose without backticks: ``round_cents()``."""
_RECEIVERS = frozenset({"self", "this", "cls"})
_CLASS_KINDS = frozenset({"class", "interface", "type", "enum"})
_NOT_PATHS = re.compile(r"^(?:e\.g|i\.e|etc|vs|www\..*|.*\.(?:com|org|net|io))$", re.IGNORECASE)
MAX_CITATIONS = 40
_EXTENSIONS = (
    "ts tsx js jsx mjs cjs py pyi json yaml yml md rst toml txt cfg ini html css "
    "scss go rs java kt rb php c h cc cpp hpp cs sh lock xml sql vue svelte"
)
FILE_EXTENSIONS = frozenset(_EXTENSIONS.split())
"""A dotted word without a folder counts as a path only with one of these extensions
(``package.json`` is a file, ``Cart.total`` is a method)."""


@dataclass(frozen=True)
class PathCitation:
    path: str
    start: int | None = None
    end: int | None = None


def _is_file_name(word: str) -> bool:
    return "." in word and word.rsplit(".", 1)[-1].lower() in FILE_EXTENSIONS


def extract_citations(text: str) -> tuple[list[PathCitation], list[str]]:
    """Paths (with line ranges) and backticked code names cited in ``text``, first seen first."""
    paths: dict[tuple[str, int | None, int | None], PathCitation] = {}
    for match in _PATH.finditer(text):
        path = match.group(1).strip(".")
        if _NOT_PATHS.match(path) or "." not in path:
            continue
        if "/" not in path and not _is_file_name(path):
            continue
        start_text = match.group(2) or match.group(4)
        end_text = match.group(3) or match.group(5)
        start = int(start_text) if start_text else None
        end = int(end_text) if end_text else start
        paths.setdefault((path, start, end), PathCitation(path, start, end))
    symbols: dict[str, None] = {}
    named = [*_SYMBOL.finditer(text), *_BARE_CALL.finditer(text)]
    for match in sorted(named, key=lambda m: m.start()):
        name = match.group(1)
        if any(key[0] == name for key in paths) or _is_file_name(name):
            continue
        symbols.setdefault(name, None)
    return list(paths.values())[:MAX_CITATIONS], list(symbols)[:MAX_CITATIONS]


def _resolve_path(path: str, known: list[str]) -> tuple[str | None, list[str]]:
    """The indexed path meant by ``path`` (exact, or the only one ending with it), and
    near candidates when there is none."""
    if path in known:
        return path, []
    cleaned = path.removeprefix("./")
    if cleaned in known:
        return cleaned, []
    tails = [p for p in known if p.endswith("/" + cleaned)]
    if len(tails) == 1:
        return tails[0], []
    if tails:
        return None, tails[:3]
    name = cleaned.rsplit("/", 1)[-1]
    return None, [p for p in known if p.rsplit("/", 1)[-1] == name][:3]


def check_path(store: Store, citation: PathCitation, known: list[str]) -> Finding:
    label = citation.path
    if citation.start is not None:
        same = citation.end is None or citation.end == citation.start
        label += f":{citation.start}" if same else f":{citation.start}-{citation.end}"
    resolved, near = _resolve_path(citation.path, known)
    if resolved is None:
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        return Finding(label, False, f"no such file in the index{hint}")
    data = store.get_file(resolved)
    count = len(data.lines) if data is not None else 0
    where = resolved if resolved == citation.path else f"found as {resolved}"
    if citation.start is None:
        return Finding(label, True, f"{where}, {count} lines")
    end = citation.end or citation.start
    if citation.start < 1 or end > count or end < citation.start:
        return Finding(label, False, f"{where} has {count} lines; the cited lines are outside it")
    return Finding(label, True, f"{where}, lines exist (file has {count})")


def check_symbol(store: Store, name: str) -> Finding:
    """A definition (of the member, when qualified by a class) makes a name real; a name with no
    definition that the code still uses (a parameter, a local, an attribute) is real too; a name
    found nowhere, or a member the named class does not have, is flagged."""
    label = f"`{name}`"
    parts = [part for part in name.split(".") if part not in _RECEIVERS] or [name]
    definitions = store.find_definitions(parts[-1])
    if len(parts) > 1 and definitions:
        owner = parts[-2]
        scoped = [d for d in definitions if d.container == owner]
        if scoped:
            definitions = scoped
        elif any(d.kind in _CLASS_KINDS for d in store.find_definitions(owner)):
            elsewhere = ", ".join(f"{d.path}:{d.line}" for d in definitions[:3])
            return Finding(label, False, f"{owner} has no {parts[-1]} ({parts[-1]}: {elsewhere})")
    if not definitions:
        uses = store.find_references(parts[-1])
        if not uses:
            return Finding(label, False, "not in the code: no definition and no use in the index")
        first = uses[0]
        return Finding(
            label,
            True,
            f"no definition, used at {first.path}:{first.line} (a parameter, local or attribute)",
        )
    shown = ", ".join(f"{d.path}:{d.line} ({d.kind})" for d in definitions[:3])
    more = f" and {len(definitions) - 3} more" if len(definitions) > 3 else ""
    return Finding(label, True, f"defined at {shown}{more}")


def gather_evidence(store: Store, answer: str) -> list[Finding]:
    paths, symbols = extract_citations(answer)
    known = sorted(store.file_hashes()) if paths else []
    findings = [check_path(store, citation, known) for citation in paths]
    findings += [check_symbol(store, name) for name in symbols]
    return findings


def critique_prompt(findings: list[Finding]) -> str:
    """The request the agent gets: re-check the previous answer with the evidence."""
    if findings:
        evidence = "\n".join(f"- {finding.line()}" for finding in findings)
    else:
        evidence = "- (the answer cites no file paths or code names)"
    return (
        "Review your previous answer for mistakes and hallucinations. Here is what the "
        "project index says about every path, line range and code name it cited:\n"
        f"{evidence}\n\n"
        "For each ✗ explain what was wrong and give the correct path, lines or name (use the "
        "tools to look them up). Then check the reasoning of the answer itself. Finish with a "
        "one-line verdict: correct, partly correct, or wrong."
    )


def last_answer(workspace: CommandHost) -> str | None:
    """The visible text of the newest assistant answer of the session, if any."""
    from ipuaro.core.transcript import visible_text

    accepted = workspace.tool_names()
    for message in reversed(workspace.history()):
        if message.role == "assistant" and (text := visible_text(message, accepted)).strip():
            return text
    return None


async def evaluate_last_answer(workspace: CommandHost) -> Evaluation | None:
    """``/eval``: the evidence for the last answer's citations and the critique request."""
    import asyncio

    from ipuaro.core.reports import Evaluation

    answer = last_answer(workspace)
    if answer is None:
        return None
    findings = await asyncio.to_thread(gather_evidence, workspace.ctx.store, answer)
    return Evaluation(findings, critique_prompt(findings))
