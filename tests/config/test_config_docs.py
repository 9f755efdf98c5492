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


def test_security_md_lists_every_key_a_project_file_may_set() -> None:
    from pydantic.alias_generators import to_camel

    from ipuaro.config.project_keys import project_key_list

    text = (DOC.parent / "security.md").read_text(encoding="utf-8")
    section = text[text.index("## Who may decide what") :]
    for dotted, _tier in project_key_list():
        parts = [to_camel(part) for part in dotted.split(".") if part != "*"]
        if parts[:2] == ["mcp", "servers"] and len(parts) == 3:
            assert f"`.{parts[2]}`" in section or f"`mcp.servers.NAME.{parts[2]}`" in section
        else:
            assert f"`{'.'.join(parts)}`" in section, dotted
