"""JSON with comments and trailing commas, as ``tsconfig.json`` allows."""

from __future__ import annotations

import json
import re
from typing import Any

# One pass over strings, // comments and /* */ comments: strings are kept verbatim so that
# "http://x" or "a/*b" inside a string survive.
_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r'("(?:\\.|[^"\\])*")|,(\s*[}\]])')


def strip_comments(text: str) -> str:
    return _TOKENS.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", text)


def loads(text: str) -> Any:
    """Parse JSONC; raises ``ValueError`` (``json.JSONDecodeError``) on malformed input."""
    cleaned = strip_comments(text.lstrip("\ufeff"))
    cleaned = _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), cleaned)
    return json.loads(cleaned)
