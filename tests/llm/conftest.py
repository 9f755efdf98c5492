"""Fixtures for the model-layer tests: the stub model server, and the opt-in realmodel lane."""

from __future__ import annotations

import pytest

from tests.stubs.model_server import model_server

__all__ = ["model_server"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``realmodel`` tests run only when asked for with ``-m realmodel`` (they need a built
    llama-cpp-python and a GGUF file; see scripts/realmodel-setup.sh)."""
    if "realmodel" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="real-model lane: run with -m realmodel")
    for item in items:
        if "realmodel" in item.keywords:
            item.add_marker(skip)
