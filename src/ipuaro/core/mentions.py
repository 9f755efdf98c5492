"""``@path`` mentions: ``explain @src/cart.ts`` gives the model that file with the request.

Every ``@word`` that names a file inside the project (relative, or absolute inside it: ACP
resource links arrive as ``@/abs/path``) is attached: the whole text when it fits the budget,
else the index's AST summary of it and its first lines that fit. The budget is a share of the
window (:data:`WINDOW_SHARE`), shared by all the mentions of one request. A word that names no
file (``@team``) stays text; a path outside the project, a secret file (``.env``, keys) or a
binary is named as not attached, so the model does not guess at it.

The attachments are one user message put before the request (the request itself stays what
the user typed: the input history and the session's request are not swollen by files).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ipuaro.security.policy.paths import PathRefused

if TYPE_CHECKING:
    from ipuaro.core.wiring import AppContext

WINDOW_SHARE = 0.25
"""Of the window, the attachments of one request may take at most this share."""
CHARS_PER_TOKEN = 3
MIN_BUDGET_CHARS = 1500
MENTION = re.compile(r"(?:^|(?<=[\s(\"'`]))@([^\s@]+)")
TRAILING = ".,;:!?)\"'`"
ATTACHED_HEADING = "Files I mention in my next message (attached by ipuaro):"


@dataclass(frozen=True)
class Attachment:
    path: str
    text: str
    """What the model reads about the file (its content, or summary and first lines)."""
    whole: bool
    refused: bool = False
    """Not attached; ``text`` says why."""


def mentioned(text: str) -> list[str]:
    """The ``@`` words of ``text`` in order, without trailing punctuation, each once."""
    found: list[str] = []
    for match in MENTION.finditer(text):
        word = match.group(1).rstrip(TRAILING)
        if word and word not in found:
            found.append(word)
    return found


def attachments(ctx: AppContext, text: str, window_tokens: int) -> list[Attachment]:
    """The files ``text`` mentions, within the budget of ``window_tokens``."""
    budget = max(MIN_BUDGET_CHARS, int(window_tokens * WINDOW_SHARE * CHARS_PER_TOKEN))
    result: list[Attachment] = []
    for word in mentioned(text):
        attached = _attach(ctx, word, budget)
        if attached is not None:
            result.append(attached)
            budget = max(0, budget - (0 if attached.refused else len(attached.text)))
    return result


def _attach(ctx: AppContext, word: str, budget: int) -> Attachment | None:
    paths = ctx.tool_ctx.paths
    try:
        resolved = paths.resolve(word.removeprefix("file://"))
    except PathRefused as refused:
        if word.startswith(("/", "..", "~")):
            return Attachment(word, f"not attached: {refused.reason}", False, True)
        return None  # not a path at all (an @handle)
    if not resolved.abs.is_file():
        return None
    rel = resolved.rel
    if paths.is_secret(rel) and not ctx.tool_ctx.grants.allows_secret(rel):
        return Attachment(rel, "not attached: a secret file (keys, .env)", False, True)
    try:
        content = resolved.abs.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return Attachment(rel, "not attached: not a text file", False, True)
    except OSError as error:
        return Attachment(rel, f"not attached: cannot be read ({error.strerror})", False, True)
    if len(content) <= budget:
        return Attachment(rel, content, True)
    return Attachment(rel, _partial(ctx, rel, content, budget), False)


def _partial(ctx: AppContext, rel: str, content: str, budget: int) -> str:
    """The file's AST summary (when indexed) and then as many first lines as fit."""
    from ipuaro.agent.context.ast_summary import summarise_file

    summary = summarise_file(rel, ctx.store.get_ast(rel), ctx.store.get_meta(rel)).full
    lines = content.splitlines()
    head: list[str] = []
    used = len(summary)
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        head.append(line)
        used += len(line) + 1
    parts = [f"(too long to attach whole: {len(lines):,} lines; use get_lines for the rest)"]
    if summary:
        parts.append(f"outline:\n{summary}")
    parts.append(f"lines 1-{len(head)}:\n" + "\n".join(head))
    return "\n".join(parts)


def attachment_message(found: list[Attachment]) -> str:
    """The user message that carries ``found`` to the model."""
    blocks = [ATTACHED_HEADING]
    for item in found:
        if item.refused:
            blocks.append(f"@{item.path}: {item.text}")
        else:
            blocks.append(f"@{item.path}:\n```\n{item.text}\n```")
    return "\n\n".join(blocks)


def attach_mentions(ctx: AppContext, text: str, window_tokens: int) -> list[Attachment]:
    """Put the files ``text`` mentions into the conversation, before the request (call it
    when the request is about to run)."""
    from ipuaro.agent.context.history import user_message

    found = attachments(ctx, text, window_tokens)
    if found:
        history = ctx.agent.session.history
        last = history[-1] if history else None
        # A headless run saved its prompt ahead (SessionKeeper.hold_prompt): before it, so the
        # request stays the last message and is not added twice.
        held = last is not None and last.role == "user" and last.content == text
        where = len(history) - 1 if held else len(history)
        history.insert(where, user_message(attachment_message(found)))
    return found
