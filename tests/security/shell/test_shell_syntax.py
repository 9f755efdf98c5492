"""The shell lexer: agreement with shlex on plain words, and bash's rules where shlex has none."""

from __future__ import annotations

import shlex

import pytest

from ipuaro.security.shell.shell_syntax import ShellSyntaxError, parse_script


def _words(source: str) -> list[list[str]]:
    return [[w.text for w in c.words] for c in parse_script(source).commands]


@pytest.mark.parametrize(
    "line",
    [
        "ls -la src",
        "git commit -m 'a message with spaces'",
        "echo \"double quoted\" and 'single'",
        "grep -rn 'a\"b' .",
        'echo "it\'s"',
        "echo a\\ b c\\\\d",
        "printf '%s\\n' x",
        "echo ''",
        'echo "" x',
        "cmd --opt=value -x",
        "echo a#b",
        "echo 'multi\nline'",
    ],
)
def test_plain_words_agree_with_shlex(line: str) -> None:
    assert _words(line) == [shlex.split(line)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a; b && c || d | e & f\ng", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g"]]),
        ("echo hi # a comment; rm x", [["echo", "hi"]]),
        ("echo a#b", [["echo", "a#b"]]),
        ("$'\\x72\\155' -x", [["rm", "-x"]]),
        ("{a,b}{1,2}", [["a1", "a2", "b1", "b2"]]),
        ('"{a,b}" x{y}z', [["{a,b}", "x{y}z"]]),
        ("echo $(inner one)", [["inner", "one"], ["echo", "$(inner one)"]]),
        ("echo `inner`", [["inner"], ["echo", "`inner`"]]),
        ("echo $((1 + 2))", [["echo", "$((1 + 2))"]]),
        ("echo $((a) ; b)", [["a"], ["b"], ["echo", "$((a) ; b)"]]),
        ("(( i++ )); x", [["x"]]),
        ("[[ a < b && c ]]", [["[[", "a", "<", "b", "&&", "c", "]]"]]),
        ("if a; then b; elif c; then d; else e; fi", [["a"], ["b"], ["c"], ["d"], ["e"]]),
        ("for i in 1 2; do b; done", [["b"]]),
        ("f() { body; }; f", [["body"], ["f"]]),
        ("line \\\ncontinued", [["line", "continued"]]),
    ],
)
def test_structure(source: str, expected: list[list[str]]) -> None:
    assert _words(source) == expected


def test_redirections_and_here_documents() -> None:
    script = parse_script("cat <<EOF >out 2>&1\nbody $(inner)\nEOF\ncat <<'Q'\n$(not run)\nQ")
    first, inner, second = script.commands[0], script.commands[1], script.commands[2]
    assert [(r.op, r.fd, r.target.text) for r in first.redirects] == [
        ("<<", "", "EOF"),
        (">", "", "out"),
        (">&", "2", "1"),
    ]
    assert first.redirects[0].body == "body $(inner)\n"
    assert [w.text for w in inner.words] == ["inner"]
    assert inner.context == "here-document › $(...)"
    assert [w.text for w in second.words] == ["cat"]
    assert second.redirects[0].body == "$(not run)\n"
    assert len(script.commands) == 3  # the quoted here-document ran nothing


def test_word_flags() -> None:
    words = parse_script("cmd $x '$y' *.py '*.py' ~/a '~/b'").commands[0].words
    assert [(w.dynamic, w.glob, w.tilde) for w in words[1:]] == [
        (True, False, False),
        (False, False, False),
        (False, True, False),
        (False, False, False),
        (False, False, True),
        (False, False, False),
    ]


def test_pipes_mark_stdin() -> None:
    commands = parse_script("a | b |& c; d").commands
    assert [c.piped_stdin for c in commands] == [False, True, True, False]


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("echo 'x", "single quote"),
        ('echo "x', "double quote"),
        ("echo `x", "backquote"),
        ("echo $(x", "missing ')'"),
        ("echo ${x", "missing '}'"),
        ("a )", "unbalanced ')'"),
        ("( a", "unbalanced '('"),
        ("echo >", "has no target"),
        ("[[ a", "closing ']]'"),
    ],
)
def test_syntax_errors(source: str, error: str) -> None:
    with pytest.raises(ShellSyntaxError, match=error.replace("(", r"\(").replace(")", r"\)")):
        parse_script(source)
