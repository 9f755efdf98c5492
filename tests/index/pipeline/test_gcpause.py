"""The collector pause around index runs: off inside, restored after, also on errors."""

from __future__ import annotations

import gc

import pytest

from ipuaro.index.pipeline.gcpause import collector_paused


def test_collector_is_off_inside_and_restored_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_collector_is_restored_after_an_error_and_stays_off_if_it_was() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
