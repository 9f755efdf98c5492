"""docs/configuration.md lists every key with its real default, so the docs cannot drift."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ipuaro.config.schema import Config

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
ROW = re.compile(r"^\| `(?P<key>[a-z]+\.[A-Za-z]+)` \| [^|]+ \| `(?P<default>[^`]*)` \|", re.M)


def test_every_key_is_documented_with_its_default() -> None:
    documented = {m["key"]: json.loads(m["default"]) for m in ROW.finditer(DOC.read_text("utf-8"))}
    defaults = Config().model_dump(mode="json", by_alias=True)
    expected = {
        f"{section}.{key}": value
        for section, values in defaults.items()
        for key, value in values.items()
    }
    assert documented == expected
