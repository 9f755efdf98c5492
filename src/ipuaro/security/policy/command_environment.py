"""Commands that print the environment: ``env``, ``printenv``, ``set``, ``export -p``,
``declare -p``, ``typeset``, ``ps e``.

Printing the environment is a secret read, like ``cat /proc/self/environ``: the environment
may hold credentials (ipuaro hides ``*_API_KEY``/``*_TOKEN``/``*_SECRET`` from commands, not
``DB_PASSWORD`` or whatever else a user keeps there). Every reason returned here ends with
:data:`~ipuaro.security.policy.command_reads.SECRET_ALLOWANCE`, so the decision is marked
:attr:`~ipuaro.security.policy.commands.CommandDecision.secret`: a person may allow it, but
``ipuaro run --allow-commands`` does not.

Naming the variables is the way out: ``printenv HOME PATH`` prints only those, and is allowed
unless a name looks like a credential (``printenv DB_PASSWORD`` is the same secret read as
``echo $DB_PASSWORD``) or is known only at run time (``printenv $x``). ``env VAR=1 cmd`` runs
``cmd`` and prints nothing of its own; ``env`` with no command prints everything.
"""

from __future__ import annotations

from ipuaro.security.policy.command_reads import SECRET_ALLOWANCE, secret_name
from ipuaro.security.shell.shell_syntax import Word

__all__ = ["ENVIRONMENT_PRINTERS", "NAMED_VARIABLES", "WHOLE_ENVIRONMENT", "environment_print"]

WHOLE_ENVIRONMENT = (
    "prints the whole environment, which may hold secrets (name the variables you need "
    f"instead: `printenv HOME PATH`); {SECRET_ALLOWANCE}"
)
NAMED_VARIABLES = "`printenv` prints only the named variables, none of which looks like a secret"
"""The allow reason of ``printenv NAME...`` when no name looks like a credential."""

ENVIRONMENT_PRINTERS = frozenset({"printenv", "set", "export", "declare", "typeset", "ps"})

_LISTING_FLAGS = frozenset({"-p", "-x", "-px", "-xp"})
_PS_VALUE_WORDS = """
    -o -O -p -q -t -u -U -g -G -C -s -k --format --sort --pid --ppid --quick-pid --user
    --User --group --Group --tty --sid --cols --columns --rows --lines --width
"""
_PS_VALUE_OPTIONS = frozenset(_PS_VALUE_WORDS.split())
_PS_VALUE_LETTERS = frozenset("oOpqtUk")  # BSD-style letters whose value is the next word


def environment_print(name: str, args: list[Word]) -> str | None:
    """The reason of a secret ask when ``name args`` prints the environment or a variable that
    may hold a secret; None when it prints none (``export X=1``, ``printenv HOME``, ``ps aux``).
    ``env`` with no command is decided where wrappers are unwrapped (:data:`WHOLE_ENVIRONMENT`).
    """
    if name == "printenv":
        return _named(args, [w for w in args if not w.text.startswith("-")])
    if name == "set":
        return WHOLE_ENVIRONMENT if not args else None
    if name in ("export", "declare", "typeset"):
        options = [w for w in args if w.text.startswith("-")]
        names = [w for w in args if not w.text.startswith("-")]
        if not names and all(w.text in _LISTING_FLAGS for w in options):
            return WHOLE_ENVIRONMENT  # `export`, `export -p`, `declare -x`, `typeset`
        if name != "export" and any("p" in w.text for w in options):
            return _named(args, names)  # `declare -p NAME` prints NAME
        return None
    if name == "ps" and _ps_shows_environment(args):
        return f"`ps e` prints the environment of every process; {SECRET_ALLOWANCE}"
    return None


def _named(args: list[Word], names: list[Word]) -> str | None:
    if not names:
        return WHOLE_ENVIRONMENT
    for word in names:
        if word.dynamic or word.glob:
            return f"prints a variable named only at run time (`{word.raw}`); {SECRET_ALLOWANCE}"
        variable = word.text.partition("=")[0]
        if secret_name(variable):
            return f"prints `{variable}`, which may hold a secret; {SECRET_ALLOWANCE}"
    return None


def _ps_shows_environment(args: list[Word]) -> bool:
    """``ps e``, ``ps auxe``, ``ps eww``: the BSD ``e`` letter adds each process's environment
    (``ps -e`` with a dash means every process and prints none)."""
    takes_value = False
    for word in args:
        text = word.text
        if takes_value:
            takes_value = False
            continue
        if text.startswith("-"):
            takes_value = text in _PS_VALUE_OPTIONS
            continue
        if word.dynamic:
            return True  # a cluster known only at run time may hold the letter
        if text.isalpha():
            if "e" in text:
                return True
            takes_value = text[-1] in _PS_VALUE_LETTERS
    return False
