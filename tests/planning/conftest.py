"""The planning tests' opt-in lane: ``realmodel`` tests here run only with ``-m realmodel``
(the same rule as tests/llm, which may not be collected when only this folder runs)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "realmodel" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="real-model lane: run with -m realmodel")
    for item in items:
        if "realmodel" in item.keywords and "tests/planning/" in item.nodeid:
            item.add_marker(skip)
