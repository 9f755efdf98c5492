"""A POSIX/bash lexer that turns a command line into every simple command it would run.

Why not ``shlex`` alone: ``shlex`` splits words with POSIX quoting but knows nothing of
``$(...)``, backticks, ``$'...'``, here-documents, brace expansion or that ``#`` starts a comment
only at the start of a word; each of those can hide a command from a checker. This lexer follows
bash for all of them (and agrees with ``shlex.split`` on plain words; the tests compare the two).

The result is flat: :class:`Script` lists the simple commands found at every depth (inside
command and process substitutions, subshells, groups, ``if``/``while`` bodies), each with its
words after quote removal, its redirections and where it came from. Values that exist only at run
time (``$x``, ``$(...)``) are kept as their source text and flagged ``dynamic``. Anything that
does not parse raises :class:`ShellSyntaxError`, which the policy treats as a refusal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ipuaro.security.shell.shell_words import (
    Chars,
    Redirect,
    Script,
    ShellSyntaxError,
    SimpleCommand,
    Word,
    brace_expand,
    decode_ansi_c,
    is_glob,
)

__all__ = ["Redirect", "Script", "ShellSyntaxError", "SimpleCommand", "Word", "parse_script"]

MAX_DEPTH = 12

_KEYWORDS = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done"})
_KEYWORDS |= {"while", "until", "time", "coproc", "esac"}
_HEADERS = frozenset({"for", "select", "case"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_OPS = (";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")")
_REDIRS = ("&>>", "<<<", "<<-", "&>", ">>", ">|", "<>", "<<", "<&", ">&", "<", ">")


@dataclass(frozen=True)
class _Op:
    op: str
    start: int


@dataclass(frozen=True)
class _Redir:
    op: str
    fd: str
    start: int


@dataclass(frozen=True)
class _WordTok:
    word: Word
    start: int
    end: int


@dataclass
class _Heredoc:
    command: list[Redirect]
    index: int
    delimiter: str
    strip_tabs: bool
    expand: bool


def parse_script(source: str, context: str = "", depth: int = 0) -> Script:
    """Every simple command in ``source``; raises :class:`ShellSyntaxError` if it cannot parse."""
    script = Script()
    _Lexer(source, script, context, depth).parse_list(nested=False)
    return script


class _Lexer:
    def __init__(self, src: str, script: Script, context: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise ShellSyntaxError(f"nested more than {MAX_DEPTH} levels deep")
        self.src = src
        self.pos = 0
        self.script = script
        self.context = context
        self.depth = depth
        self.heredocs: list[_Heredoc] = []

    def _inner(self, src: str, context: str) -> _Lexer:
        """A lexer for text nested in this one; contexts chain (``bash -c › $(...)``)."""
        chained = f"{self.context} › {context}" if self.context else context
        return _Lexer(src, self.script, chained, self.depth + 1)

    # --- commands -------------------------------------------------------------------------

    def parse_list(self, nested: bool) -> None:
        """Read commands until the end (or, when ``nested``, the ``)`` closing a ``$(``)."""
        words: list[Word] = []
        redirects: list[Redirect] = []
        start: int | None = None
        end = 0
        piped = False
        parens = 0
        header = False  # inside a `for x in ...` / `case ... in` header: data, not a command

        def finish(next_piped: bool) -> None:
            nonlocal words, redirects, start, piped, header
            if (words or redirects) and not header:
                text = self.src[start if start is not None else 0 : end].strip()
                self.script.commands.append(
                    SimpleCommand(words, redirects, text, piped, self.context)
                )
            words, redirects, start, piped, header = [], [], None, next_piped, False

        while True:
            at_command = not words and not header
            arith_allowed = at_command or (header and [w.text for w in words] == ["for"])
            if arith_allowed and self._arith_command():
                continue
            token = self._next_token()
            if token is None:
                finish(False)
                self._read_heredocs()
                if nested:
                    raise ShellSyntaxError(f"unterminated {self.context or '$('}: missing ')'")
                if parens:
                    raise ShellSyntaxError("unbalanced '(': missing ')'")
                return
            if isinstance(token, _WordTok):
                word = token.word
                if start is None:
                    start = token.start
                end = token.end
                if at_command and not word.quoted and word.text in _KEYWORDS:
                    start = None
                    if word.text == "time":
                        self._skip_word_if("-p")
                    continue
                if at_command and not word.quoted and word.text in _HEADERS:
                    header = True
                elif at_command and not word.quoted and word.text == "function":
                    name = self._next_token()
                    if not isinstance(name, _WordTok):
                        raise ShellSyntaxError("'function' without a name")
                    self.script.functions.append(name.word.text)
                    self._skip_parens_pair()
                    start = None
                    continue
                elif at_command and not word.quoted and word.text == "[[":
                    words.extend(self._read_conditional(word))
                    end = self.pos
                    continue
                words.extend(brace_expand(word))
            elif isinstance(token, _Redir):
                if start is None:
                    start = token.start
                target = self._next_token()
                if not isinstance(target, _WordTok):
                    raise ShellSyntaxError(f"redirection '{token.op}' has no target")
                end = target.end
                body = target.word.text + "\n" if token.op == "<<<" else None
                redirects.append(Redirect(token.op, token.fd, target.word, body))
                if token.op in ("<<", "<<-"):
                    delimiter = target.word
                    self.heredocs.append(
                        _Heredoc(
                            redirects,
                            len(redirects) - 1,
                            delimiter.text,
                            token.op == "<<-",
                            not delimiter.quoted,
                        )
                    )
            else:
                op = token.op
                if op == "(":
                    if len(words) == 1 and not redirects and self._skip_word_if(")", op=True):
                        self.script.functions.append(words[0].text)  # name() { body; }
                        words, start = [], None
                        continue
                    finish(False)
                    parens += 1
                elif op == ")":
                    finish(False)
                    if parens == 0:
                        if nested:
                            return
                        raise ShellSyntaxError("unbalanced ')': no matching '('")
                    parens -= 1
                elif op == "\n":
                    finish(False)
                    self._read_heredocs()
                else:
                    finish(op in ("|", "|&"))

    def _read_conditional(self, opener: Word) -> list[Word]:
        """``[[ ... ]]``: operators inside are words (``<`` compares, it does not redirect)."""
        out = [opener]
        while True:
            self._skip_blanks()
            if self.pos >= len(self.src):
                raise ShellSyntaxError("'[[' without its closing ']]'")
            token = self._next_token(operators_as_words=True)
            if isinstance(token, _WordTok):
                out.append(token.word)
                if token.word.text == "]]" and not token.word.quoted:
                    return out

    def _arith_command(self) -> bool:
        """``(( expr ))`` at command position: only its substitutions run."""
        self._skip_blanks()
        if not self.src.startswith("((", self.pos):
            return False
        saved = self.pos
        self.pos += 2
        if self._arith_body():
            return True
        self.pos = saved
        return False

    def _arith_body(self) -> bool:
        """Scan to the ``))`` closing an arithmetic expression; False if it is not one."""
        depth = 0
        chars = Chars()
        while self.pos < len(self.src):
            char = self.src[self.pos]
            if char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    if self.src.startswith("))", self.pos):
                        self.pos += 2
                        return True
                    return False  # `$((cmd) ...)`: a subshell inside $( ), not arithmetic
                depth -= 1
            elif char in "$`\"'\\":
                self._read_word_part(chars, in_dquote=False)
                continue
            self.pos += 1
        return False

    def _read_heredocs(self) -> None:
        for doc in self.heredocs:
            lines: list[str] = []
            while self.pos < len(self.src):
                newline = self.src.find("\n", self.pos)
                stop = len(self.src) if newline < 0 else newline
                line = self.src[self.pos : stop]
                self.pos = stop + 1
                if (line.lstrip("\t") if doc.strip_tabs else line) == doc.delimiter:
                    break
                lines.append(line.lstrip("\t") if doc.strip_tabs else line)
            body = "".join(line + "\n" for line in lines)
            if doc.expand:  # unquoted delimiter: $(...) and `...` in the body run
                self._inner(body, "here-document")._scan_text_expansions()
            old = doc.command[doc.index]
            doc.command[doc.index] = Redirect(old.op, old.fd, old.target, body)
        self.heredocs = []

    # --- tokens ---------------------------------------------------------------------------

    def _skip_blanks(self) -> None:
        src = self.src
        while self.pos < len(src):
            if src[self.pos] in " \t":
                self.pos += 1
            elif src.startswith("\\\n", self.pos):
                self.pos += 2
            elif src[self.pos] == "#":  # a comment: only at the start of a word
                newline = src.find("\n", self.pos)
                self.pos = len(src) if newline < 0 else newline
            else:
                return

    def _skip_word_if(self, text: str, op: bool = False) -> bool:
        saved = self.pos
        token = self._next_token()
        if op and isinstance(token, _Op) and token.op == text:
            return True
        if not op and isinstance(token, _WordTok) and token.word.raw == text:
            return True
        self.pos = saved
        return False

    def _skip_parens_pair(self) -> None:
        saved = self.pos
        first = self._next_token()
        if isinstance(first, _Op) and first.op == "(" and self._skip_word_if(")", op=True):
            return
        self.pos = saved

    def _next_token(self, operators_as_words: bool = False) -> _WordTok | _Op | _Redir | None:
        self._skip_blanks()
        src, start = self.src, self.pos
        if start >= len(src):
            return None
        if src[start] == "\n":
            self.pos += 1
            return _Op("\n", start)
        if src.startswith(("<(", ">("), start):
            return self._read_word()  # process substitution is a word
        fd_match = re.match(r"\d+(?=[<>])", src[start:])
        fd = fd_match.group(0) if fd_match else ""
        for redir in _REDIRS:
            if src.startswith(redir, start + len(fd)):
                self.pos = start + len(fd) + len(redir)
                if operators_as_words:
                    text = src[start : self.pos]
                    return _WordTok(Word(text, text), start, self.pos)
                return _Redir(redir, fd, start)
        for op in _OPS:
            if src.startswith(op, start):
                self.pos = start + len(op)
                if operators_as_words:
                    return _WordTok(Word(op, op), start, self.pos)
                return _Op(op, start)
        return self._read_word()

    def _read_word(self) -> _WordTok:
        start = self.pos
        chars = Chars()
        src = self.src
        while self.pos < len(src):
            char = src[self.pos]
            if src.startswith(("<(", ">("), self.pos):
                begin = self.pos
                self.pos += 2
                self._nested(f"{char}(...)")
                chars.add(src[begin : self.pos], True)  # kept as written, inert
                chars.dynamic = True
                continue
            if char in " \t\n;&|()<>":
                if char == "(" and _ASSIGN_PREFIX.fullmatch(chars.text()) and not chars.quoted:
                    self._read_array(chars)
                    continue
                break
            self._read_word_part(chars, in_dquote=False)
        raw = src[start : self.pos]
        text = chars.text()
        chars.glob |= is_glob(chars.chars)
        tilde = bool(chars.chars) and chars.chars[0] == ("~", False)
        word = Word(text, raw, chars.quoted, chars.dynamic, chars.glob, tilde, tuple(chars.chars))
        return _WordTok(word, start, self.pos)

    def _read_array(self, chars: Chars) -> None:
        """``name=(a b $(c))``: the elements are data, but their substitutions run."""
        self.pos += 1
        while True:
            token = self._next_token()
            if token is None:
                raise ShellSyntaxError("array assignment without its closing ')'")
            if isinstance(token, _Op) and token.op == ")":
                break
            if isinstance(token, _WordTok):
                chars.dynamic |= token.word.dynamic
        chars.add("(...)", True)

    def _read_word_part(self, chars: Chars, in_dquote: bool) -> None:
        """One unit of a word at ``self.pos``: a quoted string, an expansion or one character."""
        src = self.src
        char = src[self.pos]
        nxt = src[self.pos + 1] if self.pos + 1 < len(src) else ""
        if char == "\\":
            if nxt == "\n":
                self.pos += 2
            elif nxt == "":
                chars.add("\\", False)
                self.pos += 1
            elif in_dquote and nxt not in '$`"\\':
                chars.add("\\", True)
                self.pos += 1
            else:
                chars.add(nxt, True)
                self.pos += 2
        elif char == "'" and not in_dquote:
            close = src.find("'", self.pos + 1)
            if close < 0:
                raise ShellSyntaxError("unbalanced single quote (')")
            chars.add(src[self.pos + 1 : close], True)
            chars.quoted = True
            self.pos = close + 1
        elif char == '"' and not in_dquote:
            self.pos += 1
            chars.quoted = True
            while True:
                if self.pos >= len(src):
                    raise ShellSyntaxError('unbalanced double quote (")')
                if src[self.pos] == '"':
                    self.pos += 1
                    break
                self._read_word_part(chars, in_dquote=True)
        elif char == "$":
            self._read_dollar(chars, in_dquote)
        elif char == "`":
            self._read_backtick(chars)
        else:
            chars.add(char, in_dquote)
            self.pos += 1

    def _read_dollar(self, chars: Chars, in_dquote: bool) -> None:
        src, start = self.src, self.pos
        nxt = src[start + 1] if start + 1 < len(src) else ""
        if nxt == "(":
            if src.startswith("$((", start):
                self.pos = start + 3
                if self._arith_body():
                    chars.add(src[start : self.pos], True)
                    chars.dynamic = True
                    return
            self.pos = start + 2
            self._nested("$(...)")
        elif nxt == "{":
            self.pos = start + 2
            self._read_braced_parameter()
        elif nxt == "'" and not in_dquote:
            text, self.pos = decode_ansi_c(src, start + 2)
            chars.add(text, True)
            chars.quoted = True
            return
        elif nxt == '"' and not in_dquote:
            self.pos = start + 1  # $"..." is a translated "..."
            self._read_word_part(chars, in_dquote=False)
            return
        elif nxt and (nxt in "@*#?$!-" or nxt.isdigit()):
            self.pos = start + 2
        elif nxt and _NAME.match(nxt):
            match = _NAME.match(src, start + 1)
            assert match is not None
            self.pos = match.end()
        else:
            chars.add("$", in_dquote)
            self.pos = start + 1
            return
        chars.add(src[start : self.pos], True)
        chars.dynamic = True

    def _read_braced_parameter(self) -> None:
        """``${...}``: skip to the matching ``}``, parsing substitutions inside."""
        depth = 1
        scratch = Chars()
        while self.pos < len(self.src):
            char = self.src[self.pos]
            if char == "}":
                depth -= 1
                self.pos += 1
                if depth == 0:
                    return
            elif char == "{":
                depth += 1
                self.pos += 1
            else:
                self._read_word_part(scratch, in_dquote=False)
        raise ShellSyntaxError("unterminated '${': missing '}'")

    def _read_backtick(self, chars: Chars) -> None:
        src, start = self.src, self.pos
        self.pos += 1
        body: list[str] = []
        while True:
            if self.pos >= len(src):
                raise ShellSyntaxError("unbalanced backquote (`)")
            char = src[self.pos]
            if char == "`":
                self.pos += 1
                break
            if char == "\\" and self.pos + 1 < len(src) and src[self.pos + 1] in "`$\\":
                body.append(src[self.pos + 1])
                self.pos += 2
                continue
            body.append(char)
            self.pos += 1
        self._inner("".join(body), "`...`").parse_list(nested=False)
        chars.add(src[start : self.pos], True)
        chars.dynamic = True

    def _nested(self, context: str) -> None:
        """Parse a ``$(...)``/``<(...)`` body in place; ``self.pos`` ends after its ``)``."""
        sub = self._inner(self.src, context)
        sub.pos = self.pos
        sub.parse_list(nested=True)
        self.pos = sub.pos

    def _scan_text_expansions(self) -> None:
        """Parse the substitutions in text that is otherwise data (a here-document body)."""
        scratch = Chars()
        while self.pos < len(self.src):
            if self.src[self.pos] in "$`\\":
                self._read_word_part(scratch, in_dquote=True)
            else:
                self.pos += 1
