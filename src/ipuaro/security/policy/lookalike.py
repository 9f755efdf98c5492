"""Characters that pretend to be others: homoglyphs, compatibility forms, invisible controls.

A command word such as ``ｒｍ`` (fullwidth), ``rм`` (Cyrillic em) or ``ṛm`` reads as ``rm`` to a
person approving it, so the policy refuses it instead of guessing what the shell will do.
"""

from __future__ import annotations

import unicodedata

__all__ = ["ascii_reading", "hidden_characters"]

# Letters from other scripts that are drawn like Latin ones (a subset of Unicode's
# confusables.txt covering Cyrillic, Greek, Armenian and Latin small capitals).
CONFUSABLES: dict[str, str] = {
    # Cyrillic lower case
    "а": "a", "в": "b", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i",
    "ј": "j", "к": "k", "ӏ": "l", "м": "m", "п": "n", "о": "o", "р": "p", "ԛ": "q",
    "г": "r", "ѕ": "s", "т": "t", "у": "y", "ԝ": "w", "х": "x", "ү": "y", "с": "c",
    "ь": "b", "з": "3",
    # Cyrillic upper case
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "η": "n", "μ": "u",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Armenian
    "օ": "o", "ս": "u", "ց": "g", "հ": "h", "ո": "n", "ք": "p",
    # Latin letters outside ASCII that NFKC leaves alone
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g", "ɩ": "i", "ʀ": "r", "ᴍ": "m", "ꜱ": "s",
    "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ᴏ": "o", "ᴘ": "p", "ᴛ": "t", "ᴜ": "u", "ᴠ": "v",
    "ᴡ": "w", "ᴢ": "z", "ɴ": "n", "ʜ": "h", "ʟ": "l", "ʙ": "b", "ɢ": "g", "ɪ": "i",
    # punctuation that reads as path or flag syntax
    "∕": "/", "⁄": "/", "⧸": "/", "∖": "\\", "‐": "-", "‑": "-", "‒": "-", "–": "-",
    "—": "-", "―": "-", "−": "-", "﹣": "-", "․": ".", "‥": "..", "…": "...",
}  # fmt: skip


def _reading(char: str) -> str | None:
    """The ASCII a single non-ASCII character is mistaken for, or None."""
    if char in CONFUSABLES:
        return CONFUSABLES[char]
    folded = unicodedata.normalize("NFKC", char)
    if folded.isascii() and folded.strip():
        return folded  # fullwidth and other compatibility forms
    stripped = "".join(
        c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
    )
    if stripped and stripped.isascii():
        return stripped  # accented Latin letters: ṛ, ḿ
    if unicodedata.combining(char):
        return ""  # a combining mark glued onto an ASCII letter
    return None


def ascii_reading(text: str) -> str | None:
    """How ``text`` reads if it disguises ASCII with look-alikes; None if it does not.

    ``ascii_reading("ｒｍ") == "rm"``; text with no disguised characters (plain ASCII, or
    other scripts that do not imitate Latin) gives None.
    """
    if text.isascii():
        return None
    out: list[str] = []
    disguised = False
    for char in text:
        reading = None if char.isascii() else _reading(char)
        if reading is None:
            out.append(char)
        else:
            disguised = True
            out.append(reading)
    return "".join(out) if disguised else None


def hidden_characters(text: str, allowed: str = "\t\n") -> list[str]:
    """Control and invisible format characters (bidi overrides, zero-width) in ``text``."""
    found = []
    for char in text:
        if char in allowed:
            continue
        if unicodedata.category(char) in ("Cc", "Cf"):
            found.append(f"U+{ord(char):04X}")
    return found
