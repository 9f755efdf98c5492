"""Mask secrets before anything reaches a trace file.

Patterns: OpenAI-style keys (``sk-…``), ``Bearer`` tokens, AWS access key ids (``AKIA…``), and
every value of the project's ``.env`` that is long enough to be a secret (short values such as
``true`` or ``8080`` would mask half the trace and protect nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ipuaro.domain.repofiles import TEXT_FILE_LIMIT, read_repo_bytes

MASK = "***"
MIN_ENV_SECRET = 6

_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{6,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
)
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


def env_values(path: Path) -> list[str]:
    """Secret-looking values of a dotenv file (quotes stripped); [] when there is none."""
    try:
        text = read_repo_bytes(path, TEXT_FILE_LIMIT).decode("utf-8", errors="replace")
    except OSError:  # absent, or a FIFO/device/huge file: nothing read, nothing to redact
        return []
    values: list[str] = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        match = _ENV_LINE.match(line)
        if not match:
            continue
        value = match.group(2)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if len(value) >= MIN_ENV_SECRET:
            values.append(value)
    return values


class Redactor:
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # Longest first so a secret containing another is masked whole.
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    @classmethod
    def for_project(cls, root: Path) -> Redactor:
        return cls(env_values(root / ".env"))

    def text(self, value: str) -> str:
        for secret in self._secrets:
            value = value.replace(secret, MASK)
        for pattern in _PATTERNS:
            if pattern.pattern.startswith("(?i)\\bbearer"):
                value = pattern.sub("Bearer " + MASK, value)
            else:
                value = pattern.sub(MASK, value)
        return value

    def value(self, data: Any) -> Any:
        """Mask strings anywhere in a JSON-like structure (keys named like secrets too)."""
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            return {
                k: (MASK if _secret_key(k) and data[k] else self.value(v)) for k, v in data.items()
            }
        if isinstance(data, list | tuple):
            return [self.value(v) for v in data]
        return data


def _secret_key(key: object) -> bool:
    return isinstance(key, str) and bool(re.search(r"(?i)(password|secret|token|api_?key)$", key))
