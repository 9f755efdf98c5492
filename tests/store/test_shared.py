"""The raw-record text test grep_search relies on never misses what the regex finds."""

from __future__ import annotations

import random
import re

import pytest

from ipuaro.store.shared import raw_text_search


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("kelvin", "\u212aelvin"),  # KELVIN SIGN matches k under IGNORECASE
        ("class", "cla\u017f\u017f"),  # LONG S matches s
        ("if", "\u0130f"),  # I WITH DOT matches i, and lower() makes it two characters
        ("if", "\u0131f"),  # DOTLESS I matches i
        ("Atomic", "transaction.ATOMIC"),
    ],
)
def test_unicode_case_folding_is_not_missed(text: str, raw: str) -> None:
    assert re.search(re.escape(text), raw, re.IGNORECASE)
    search = raw_text_search(text, case_sensitive=False)
    assert search is not None and search(raw)


def test_case_sensitive_is_a_plain_substring_test() -> None:
    search = raw_text_search("Atomic", case_sensitive=True)
    assert search is not None
    assert search('{"lines":["x.Atomic()"]}') and not search('{"lines":["x.atomic()"]}')


@pytest.mark.parametrize("text", ["", 'say "hi"', "C:\\temp", "a\tb", "café", "x\x7f"])
def test_text_json_may_hide_is_not_pre_searched(text: str) -> None:
    assert raw_text_search(text, case_sensitive=False) is None


def test_never_false_where_the_regex_matches() -> None:
    rng = random.Random(7)
    letters = "aiskKIS x.\u212a\u017f\u0130\u0131é\u03a3"
    for _ in range(20_000):
        text = "".join(rng.choice("aisk .x") for _ in range(rng.randint(1, 3)))
        raw = "".join(rng.choice(letters) for _ in range(rng.randint(0, 8)))
        for case_sensitive in (False, True):
            flags = 0 if case_sensitive else re.IGNORECASE
            search = raw_text_search(text, case_sensitive)
            assert search is not None
            if re.search(re.escape(text), raw, flags):
                assert search(raw), (text, raw, case_sensitive)
