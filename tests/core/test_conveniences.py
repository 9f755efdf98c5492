"""``!command`` parsing and the output the conversation keeps."""

from __future__ import annotations

import pytest

from ipuaro.core.commands import CommandError, is_command, parse_command
from ipuaro.core.conveniences import capped, conversation_note


def test_a_bang_line_is_the_shell_command_with_its_quotes_untouched() -> None:
    typed = "!grep -n 'def main' src/*.py | head -3"
    assert is_command(typed)
    command = parse_command(typed)
    assert command.name == "shell"
    assert command.args == ("grep -n 'def main' src/*.py | head -3",)
    assert parse_command('/shell echo "it\'s"').args == ('echo "it\'s"',)


@pytest.mark.parametrize("typed", ["!", "!   ", "/shell"])
def test_an_empty_command_says_what_to_type(typed: str) -> None:
    with pytest.raises(CommandError, match="type a command after '!'"):
        parse_command(typed)


def test_long_output_keeps_head_and_tail_and_says_what_was_left_out() -> None:
    output = "HEAD" + "x" * 10_000 + "TAIL"
    kept = capped(output, 1000)
    assert kept.startswith("HEAD") and kept.endswith("TAIL")
    assert "characters left out" in kept and len(kept) < 1100
    note = conversation_note("make", output, ok=False)
    assert "`make`" in note and "(it failed)" in note and "TAIL" in note
