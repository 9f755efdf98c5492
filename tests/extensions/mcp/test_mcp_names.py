"""Names the model sees and values a server gets, over generated input: a tool name is always
one models accept (or the tool stays behind ``mcp_call``), and ``${NAME}`` never hands a
project's server a secret."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from ipuaro.extensions.mcp.environment import expand, is_secret_name
from ipuaro.extensions.mcp.policy import CallPolicy, tool_name

ACCEPTED = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
servers = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}", fullmatch=True).filter(
    lambda s: "__" not in s
)


@given(servers, st.text(min_size=1, max_size=80))
def test_a_tool_name_is_one_models_accept_or_none(server: str, tool: str) -> None:
    name = tool_name(server, tool)
    if name is None:
        assert len(f"mcp__{server}__{tool}") > 64
    else:
        assert ACCEPTED.match(name) and name.startswith(f"mcp__{server}__")


@given(servers, st.text(min_size=1, max_size=30))
def test_deny_beats_allow_for_every_name(server: str, tool: str) -> None:
    policy = CallPolicy(allow=("mcp__*",), deny=(f"mcp__{server}__*",))
    assert policy.verdict(server, tool) == "deny"
    assert CallPolicy(allow=("mcp__*",)).verdict(server, tool) == "allow"
    assert CallPolicy().verdict(server, tool) == "ask"


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)


@given(names, st.text(max_size=20))
def test_a_project_server_expands_only_what_the_user_named_and_never_a_secret(
    name: str, value: str
) -> None:
    environ = {name: value, f"{name}_TOKEN": "secret", "OPENAI_API_KEY": "sk"}
    text = f"a ${{{name}}} b ${{{name}_TOKEN}} c ${{OPENAI_API_KEY}}"
    user_named = frozenset({name, f"{name}_TOKEN", "OPENAI_API_KEY"})
    kept = "" if is_secret_name(name) else value
    assert expand(text, environ, user_named) == f"a {kept} b  c "
    assert expand(text, environ, frozenset()) == "a  b  c ", "named by the project alone"
    assert expand(text, environ, None) == f"a {value} b secret c sk", "the user's own server"
