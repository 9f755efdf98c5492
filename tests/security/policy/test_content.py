"""Content rules: NUL, pseudo-binary, UTF-8; EOL style and final newline kept."""

from __future__ import annotations

import pytest

from ipuaro.security.policy.content import (
    ContentRefused,
    apply_eol,
    check_text,
    conform_to,
    decode_text,
    detect_eol,
    split_lines,
)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain\n",
        "tabs\tand\fform feeds\r\n",
        "unicode: привет, 你好, café, emoji 👍\n",
        "\x1b[31mred\x1b[0m " + "x" * 100,  # a few escapes in a long text
        "a" * 90 + "\x01" * 10,  # exactly 10 %: allowed
    ],
)
def test_accepted_text(text: str) -> None:
    check_text(text, "f.txt")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("abc\x00def", "NUL byte (at character 3)"),
        ("\x00", "NUL byte"),
        ("a" * 89 + "\x01" * 11, "11 of 100 characters (11%) are non-printable"),
        ("\x7f\x80\x81\x82 ok", "non-printable"),
        ("\ufffd" * 5 + "abc", "non-printable"),
        ("bad \ud800 surrogate", "lone surrogate at character 4"),
    ],
)
def test_refused_text(text: str, reason: str) -> None:
    with pytest.raises(ContentRefused) as refused:
        check_text(text, "src/x.py")
    assert reason in refused.value.reason
    assert "src/x.py" in refused.value.reason


def test_non_string_is_refused() -> None:
    with pytest.raises(ContentRefused, match="expected text"):
        check_text(b"bytes", "f")  # type: ignore[arg-type]


def test_decode_text() -> None:
    assert decode_text("héllo\n".encode()) == "héllo\n"
    with pytest.raises(ContentRefused, match=r"not UTF-8 \(byte 0xe9 at offset 1\)"):
        decode_text("héllo".encode("latin-1"), "old.txt")
    with pytest.raises(ContentRefused, match="NUL byte"):
        decode_text(b"PK\x03\x04\x00\x00", "a.zip")


@pytest.mark.parametrize(
    ("text", "eol"),
    [
        ("", "\n"),
        ("one line", "\n"),
        ("a\nb\n", "\n"),
        ("a\r\nb\r\n", "\r\n"),
        ("a\rb\r", "\r"),
        ("a\r\nb\r\nc\n", "\r\n"),  # majority wins
        ("a\nb\r\n", "\n"),  # a tie prefers LF
    ],
)
def test_detect_eol(text: str, eol: str) -> None:
    assert detect_eol(text) == eol


@pytest.mark.parametrize(
    ("text", "lines", "eol", "final"),
    [
        ("", [], "\n", False),
        ("a", ["a"], "\n", False),
        ("a\n", ["a"], "\n", True),
        ("\n", [""], "\n", True),
        ("a\n\n", ["a", ""], "\n", True),
        ("a\r\nb", ["a", "b"], "\r\n", False),
        ("a\r\nb\r\n", ["a", "b"], "\r\n", True),
        ("a\rb\r", ["a", "b"], "\r", True),
    ],
)
def test_split_lines(text: str, lines: list[str], eol: str, final: bool) -> None:
    assert split_lines(text) == (lines, eol, final)


@pytest.mark.parametrize(
    "text",
    ["", "a", "a\n", "\n", "a\n\nb\n", "a\r\nb", "a\r\nb\r\n", "x\ry\r", "\r\n\r\n", "  \n\t"],
)
def test_round_trip_keeps_eol_and_final_newline(text: str) -> None:
    assert apply_eol(*split_lines(text)) == text


def test_apply_eol_rejects_bad_eol() -> None:
    with pytest.raises(ValueError, match="eol must be"):
        apply_eol(["a"], "\n\n", True)


def test_conform_to_keeps_the_original_style() -> None:
    assert conform_to("x\ny\n", "a\r\nb\r\n") == "x\r\ny\r\n"
    assert conform_to("x\ny\n", "a\r\nb") == "x\r\ny"  # no final newline in the original
    assert conform_to("x\ny", "a\nb\n") == "x\ny\n"
    assert conform_to("new\r\n", "") == "new\r\n"  # a new file keeps its own style


def test_the_non_printable_count_agrees_with_the_per_character_rule_on_every_code_point() -> None:
    """The pattern counted in C says what the per-character rule says, for every code point
    (surrogates included): the fast count refuses and accepts exactly the same texts."""
    from ipuaro.security.policy.content import _is_non_printable, count_non_printable

    everything = "".join(map(chr, range(0x110000)))
    expected = [c for c in everything if _is_non_printable(c)]
    assert count_non_printable(everything) == len(expected)
    assert count_non_printable("".join(expected)) == len(expected)
