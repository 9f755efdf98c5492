"""Which files deserve a full summary when the project does not fit the structure budget.

Signals: files named by words of the user's message (path or symbol names) — weighted by how
rare the word is in the project, so ``QuerySet`` picks the file that defines it and ``filter``
(in a thousand files) barely counts —, files the session recently edited or read, files git
reports modified, hubs (many dependents), entry points. Tests lose points unless the message is
about tests, deeply nested files lose a little, so the core code comes first.
"""

from __future__ import annotations

import math
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ipuaro.agent.context.ast_summary import FileSummary, split_words

_TEST_WORDS = frozenset({"test", "tests", "testing", "spec", "specs", "pytest", "unittest"})
_STOP_WORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "what",
        "how",
        "does",
        "work",
        "works",
        "why",
        "can",
        "you",
        "please",
        "file",
        "files",
        "code",
        "make",
        "add",
        "fix",
        "use",
        "using",
        "all",
        "are",
        "not",
        "but",
        "its",
        "was",
        "were",
        "has",
        "have",
        "had",
        "new",
        "get",
        "set",
        "let",
        "then",
        "than",
        "them",
        "they",
        "there",
        "here",
        "where",
        "when",
        "which",
        "who",
        "will",
        "would",
        "should",
        "could",
        "about",
        "explain",
        "show",
        "tell",
        "run",
    ]
)


@dataclass(frozen=True)
class RankSignals:
    message_words: frozenset[str] = frozenset()
    recent: frozenset[str] = frozenset()
    """Files touched by the session (read or edited), most relevant to continue work."""
    git_modified: frozenset[str] = frozenset()
    weights: Mapping[str, float] = field(default_factory=dict)
    """Per message word: its rarity in the project (inverse document frequency)."""
    about_tests: bool = False

    @classmethod
    def build(
        cls,
        message: str,
        recent: Iterable[str] = (),
        git_modified: Iterable[str] = (),
        document_frequency: Mapping[str, int] | None = None,
        files: int = 0,
    ) -> RankSignals:
        words = frozenset(w for w in split_words(message) if w not in _STOP_WORDS)
        df = document_frequency or {}
        weights = {w: math.log((files + 1) / (df.get(w, 0) + 1)) + 1.0 for w in words}
        about_tests = bool(words & _TEST_WORDS)
        return cls(words, frozenset(recent), frozenset(git_modified), weights, about_tests)


def is_test(path: str) -> bool:
    name = posixpath.basename(path)
    return (
        "/tests/" in f"/{path}"
        or "/test/" in f"/{path}"
        or "__tests__" in path
        or name.startswith("test_")
        or ".test." in name
        or ".spec." in name
    )


def static_score(summary: FileSummary) -> float:
    """The part of the score that does not depend on the request (cacheable per file).
    Tests get neither the entry-point bonus (every test file is one) nor the hub bonus."""
    if is_test(summary.path):
        return -3.0 - 0.15 * summary.path.count("/")
    value = min(3.0, math.log2(1 + summary.dependents))
    if summary.is_hub:
        value += 3.0
    if summary.is_entry_point:
        value += 2.0
    if summary.full:
        value += 0.5  # a file with an AST says more than a bare name
    return value - 0.15 * summary.path.count("/")


MESSAGE_CAP = 40.0


def score(summary: FileSummary, signals: RankSignals, static: float | None = None) -> float:
    value = static_score(summary) if static is None else static
    if signals.about_tests and is_test(summary.path):
        value += 3.0
    if signals.message_words:
        matched = 0.0
        for word in signals.message_words & summary.words:
            weight = signals.weights.get(word, 1.0)
            matched += (4.0 if word in summary.path_words else 2.5) * weight
        value += min(MESSAGE_CAP, matched)
    if summary.path in signals.recent:
        value += 8.0
    if summary.path in signals.git_modified:
        value += 5.0
    return value


def rank(
    summaries: Mapping[str, FileSummary],
    signals: RankSignals,
    static: Mapping[str, float] | None = None,
) -> list[str]:
    """Paths, best first; ties broken by path so the order is stable across runs.
    ``static`` holds precomputed ``static_score`` values (the summary cache keeps them)."""
    if static is None:
        static = {p: static_score(s) for p, s in summaries.items()}
    scored = [(-score(summaries[p], signals, static[p]), p) for p in summaries]
    scored.sort()
    return [p for _, p in scored]
