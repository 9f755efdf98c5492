"""Arguments written as XML elements: ``<path>src/a.ts</path><content><![CDATA[…]]></content>``.

Not an XML parser on purpose: model output is rarely well-formed XML (raw ``<`` and ``&`` in
code), so each argument is read as "from ``<key>`` to the first ``</key>``", with CDATA taken
verbatim. ``<parameter name="key">`` (the Anthropic/Cline spelling) works too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_OPEN = re.compile(r"<(?P<tag>[A-Za-z_][\w.-]*)(?P<attrs>\s[^<>]*?)?(?P<selfclose>/)?>")
_NAME_ATTR = re.compile(r"""name\s*=\s*["']([^"']+)["']""")
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_ENTITIES = {"&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'", "&amp;": "&"}
_GENERIC_TAGS = frozenset({"parameter", "param", "arg", "argument"})


@dataclass(frozen=True)
class XmlArguments:
    values: dict[str, Any]
    consumed: int
    """How much of the body the elements used; text after it is prose, not arguments."""
    problem: str | None = None


def parse_xml_arguments(body: str) -> XmlArguments:
    values: dict[str, Any] = {}
    pos = 0
    while True:
        while pos < len(body) and body[pos].isspace():
            pos += 1
        if pos >= len(body):
            return XmlArguments(values, pos)
        opening = _OPEN.match(body, pos)
        if opening is None:
            if not values:
                snippet = body[pos : pos + 40].strip()
                problem = f"expected <argument>value</argument> elements, found {snippet!r}"
                return XmlArguments(values, pos, problem)
            return XmlArguments(values, pos)
        tag = opening.group("tag")
        key = tag
        name_attr = _NAME_ATTR.search(opening.group("attrs") or "")
        if tag.lower() in _GENERIC_TAGS and name_attr is not None:
            key = name_attr.group(1)
        if opening.group("selfclose"):
            values[key] = ""
            pos = opening.end()
            continue
        close = _find_close(body, opening.end(), tag)
        if close is None:
            problem = f"<{tag}> is not closed with </{tag}> (was the reply cut off?)"
            return XmlArguments(values, len(body), problem)
        values[key] = _decode_value(body[opening.end() : close[0]])
        pos = close[1]


def _find_close(body: str, start: int, tag: str) -> tuple[int, int] | None:
    """Span of the first ``</tag>`` after ``start`` that is not inside a CDATA section."""
    pos = start
    closing = re.compile(rf"</{re.escape(tag)}\s*>")
    while True:
        match = closing.search(body, pos)
        if match is None:
            return None
        cdata_start = body.find("<![CDATA[", pos, match.start())
        if cdata_start == -1:
            return match.span()
        cdata_end = body.find("]]>", cdata_start)
        if cdata_end == -1:
            return None
        pos = cdata_end + 3


def _decode_value(raw: str) -> Any:
    if "<![CDATA[" in raw:
        # CDATA is verbatim; the whitespace around the section is layout.
        parts: list[str] = []
        pos = 0
        for match in _CDATA.finditer(raw):
            between = raw[pos : match.start()]
            if between.strip():
                parts.append(_unescape(between))
            parts.append(match.group(1))
            pos = match.end()
        tail = raw[pos:]
        if tail.strip():
            parts.append(_unescape(tail))
        return "".join(parts)
    value = _unescape(raw)
    if "\n" not in value.strip():
        value = value.strip()
        if value[:1] in "[{":
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                return value
        return value
    # Multi-line without CDATA: drop the line break after the opening tag and the indentation
    # before the closing one, keep everything else.
    if value.startswith("\n"):
        value = value[1:]
    elif value.startswith("\r\n"):
        value = value[2:]
    return re.sub(r"\n[ \t]*\Z", "\n", value)


def _unescape(text: str) -> str:
    return re.sub(r"&(?:lt|gt|quot|apos|amp);", lambda m: _ENTITIES[m.group(0)], text)
