"""An MCP result as text the model reads, capped like a command's output (head and tail kept,
the cut said)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import mcp_types


def content_text(blocks: Sequence[Any], structured: dict[str, Any] | None = None) -> str:
    """Text blocks as they are; images, audio and binary resources as a one-line note (the
    model cannot read them); structured content when nothing else was sent."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, mcp_types.TextContent):
            parts.append(block.text)
        elif isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
            kind = "image" if isinstance(block, mcp_types.ImageContent) else "audio"
            size = len(block.data) * 3 // 4  # base64
            parts.append(f"[{kind} {block.mime_type}, {size:,} bytes, not shown]")
        elif isinstance(block, mcp_types.ResourceLink):
            parts.append(f"[resource {block.uri} ({block.name}): read it with mcp_read_resource]")
        elif isinstance(block, mcp_types.EmbeddedResource):
            parts.append(resource_text(block.resource))
        else:
            parts.append(f"[{getattr(block, 'type', type(block).__name__)} content, not shown]")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=1))
    return "\n".join(parts)


def resource_text(contents: Any) -> str:
    if isinstance(contents, mcp_types.TextResourceContents):
        return contents.text
    mime = getattr(contents, "mime_type", None) or "binary"
    return f"[{mime} resource {contents.uri}, not shown]"


def cap(text: str, limit: int) -> str:
    """At most ``limit`` characters: the head (two thirds) and the tail, the cut named."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    cut = len(text) - head - tail
    return (
        f"{text[:head]}\n… [{cut:,} characters cut: the output was {len(text):,} characters; "
        f"ask the tool for less] …\n{text[-tail:]}"
    )
