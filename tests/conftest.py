"""Suite-wide: results must not depend on the machine running the tests."""

from __future__ import annotations

import pytest

from ipuaro.llm import window


@pytest.fixture(autouse=True)
def machine_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """The RAM that caps an Ollama window chosen without a setting: 32 GiB everywhere (a test
    of the cap passes ``total_memory`` itself)."""
    monkeypatch.setattr(window, "_total_memory", lambda: 32 * window.GIB)
