"""Script tools: a program declared in config (``extensions.tools``) that the model calls like
any built-in tool.

The model sees the declared name, description and JSON Schema (natively or through the text
protocol, as the registry offers every tool). A call's arguments are checked against that
schema with ``jsonschema``, then reach the program three ways, none through a shell: as JSON
on stdin, as ``IPUARO_ARG_<NAME>`` environment variables, and as whole argv items where the
template has ``{name}``. The rendered argv goes through the command policy (a deny rule
refuses it); declaring the tool — in the user's own config, or in a project the user trusts —
is the approval an "ask" verdict wants. It runs in the project's sandbox (read-only for a
``readOnly`` tool) with a timeout that kills its process group, and its output is capped like
``run_command``'s.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from ipuaro.config.schema import Config, ScriptToolConfig
from ipuaro.domain.errors import IpuaroError
from ipuaro.tools.base import ToolContext, ToolOutcome, ToolRefused

if TYPE_CHECKING:
    # the process runner and the sandbox load with the first call of a script tool
    import jsonschema

    from ipuaro.extensions.process import ProgramResult
    from ipuaro.security.sandboxing.sandbox import ProfileName, SandboxProfile

__all__ = ["ScriptTool", "ScriptToolProblem", "build_script_tool"]

Source = Literal["user", "project"]
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ScriptToolProblem(IpuaroError, ValueError):
    """A declaration that cannot become a tool; the message names the key and the fix."""


class ScriptArgs(BaseModel):
    """Base of a script tool's arguments: any JSON object its schema accepts."""

    model_config = ConfigDict(extra="allow")
    schema_: ClassVar[dict[str, Any]] = {}
    validator_: ClassVar[Any] = None

    @model_validator(mode="before")
    @classmethod
    def _against_schema(cls, data: Any) -> Any:
        data = _coerce(data, cls.schema_)
        problems = sorted(cls.validator_.iter_errors(data), key=lambda e: list(e.path))
        if problems:
            raise ValueError("; ".join(_describe(problem) for problem in problems[:3]))
        return data

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return copy.deepcopy(cls.schema_)


def _coerce(data: Any, schema: dict[str, Any]) -> Any:
    """Text where the schema wants a number, a boolean, a list or an object, read as one: the
    text protocols (XML, ReAct) carry every value as text, as pydantic's lax mode reads them
    for built-in tools. A value that does not read stays as it was, for the schema to name."""
    properties = schema.get("properties")
    if not isinstance(data, dict) or not isinstance(properties, dict):
        return data
    out = dict(data)
    for key, value in data.items():
        wanted = (
            properties.get(key, {}).get("type") if isinstance(properties.get(key), dict) else None
        )
        kinds = set(wanted) if isinstance(wanted, list) else {wanted}
        if not isinstance(value, str) or "string" in kinds:
            continue
        text = value.strip()
        if "boolean" in kinds and text.lower() in ("true", "false"):
            out[key] = text.lower() == "true"
        elif kinds & {"integer", "number", "array", "object"}:
            try:
                parsed = json.loads(text)
            except ValueError:
                continue
            if not isinstance(parsed, bool):
                out[key] = parsed
    return out


def _describe(problem: jsonschema.ValidationError) -> str:
    where = "/".join(str(part) for part in problem.absolute_path)
    return f"{where}: {problem.message}" if where else problem.message


def _args_model(name: str, schema: dict[str, Any]) -> type[ScriptArgs]:
    # jsonschema loads only for a project that declares script tools (start-up, issue 27)
    from jsonschema.validators import validator_for

    validator_class = validator_for(schema)
    validator_class.check_schema(schema)
    attributes = {"schema_": schema, "validator_": validator_class(schema)}
    return type(f"{name}_args", (ScriptArgs,), attributes)


class ScriptTool:
    """One declared program as a :class:`~ipuaro.tools.base.Tool`."""

    path_fields: tuple[str, ...] = ()
    executes = True
    """It runs a program: an ``execute`` call for the front ends, never counted as an edit."""

    def __init__(
        self,
        name: str,
        spec: ScriptToolConfig,
        source: Source,
        args_model: type[ScriptArgs],
        cwd: Path,
    ) -> None:
        self.name = name
        self.spec = spec
        self.source = source
        self.args_model: type[BaseModel] = args_model
        self.description = spec.description
        self.read_only = spec.read_only
        self.needs_confirmation = not spec.read_only
        self.cwd = cwd
        self._sandbox: SandboxProfile | None = None

    def argv_for(self, arguments: dict[str, Any]) -> list[str]:
        """The argv with ``{name}`` items filled (an item naming an absent argument is left
        out). Raises :class:`ToolRefused` for a value that would read as an option."""
        argv: list[str] = []
        for item in self.spec.argv:
            names = [m for m in PLACEHOLDER.findall(item) if m in _properties(self.spec)]
            if any(name not in arguments for name in names):
                continue
            whole = len(names) == 1 and item == "{" + names[0] + "}"
            value = arguments[names[0]] if whole else None
            if whole and isinstance(value, str) and value.startswith("-"):
                raise ToolRefused(
                    f"argument {names[0]!r} starts with '-' and would reach {self.spec.argv[0]} "
                    "as an option; pass it without the leading dash"
                )
            argv.append(_fill(item, names, arguments))
        return argv

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        arguments: dict[str, Any] = args.model_dump() if isinstance(args, BaseModel) else {}
        argv = self.argv_for(arguments)
        command = shlex.join(argv)
        decision = ctx.commands.decide(command, granted=ctx.grants.commands)
        if decision.verdict == "deny":
            raise ToolRefused(f"command refused by policy: {decision.reason}")
        if not self.cwd.is_dir():
            return ToolOutcome.fail(
                f"{self.name}: its working directory {self.spec.cwd!r} does not exist in the "
                "project; fix extensions.tools." + self.name + ".cwd"
            )
        from ipuaro.extensions.process import run_program

        limit = ctx.config.commands.output_limit_bytes
        result = await run_program(
            argv,
            cwd=self.cwd,
            stdin=json.dumps(arguments, ensure_ascii=False).encode("utf-8"),
            timeout=self.spec.timeout,
            output_limit=limit,
            extra_env=_argument_env(self.name, ctx.root, arguments),
            hidden_env=[ctx.config.llm.api_key_env],
            sandbox=self._profile(ctx.root, ctx.config),
            cancel=ctx.cancel,
        )
        return self._outcome(command, result, limit)

    def _profile(self, root: Path, config: Config) -> SandboxProfile:
        from ipuaro.security.sandboxing.sandbox import SandboxProfile

        if self._sandbox is None:
            name: ProfileName | None = None
            if self.read_only and config.sandbox.profile != "off":
                name = "read-only"
            self._sandbox = SandboxProfile.for_project(root, config.sandbox, name=name)
        return self._sandbox

    def _outcome(self, command: str, result: ProgramResult, limit: int) -> ToolOutcome:
        data = {
            "command": command,
            "exitCode": result.exit_code,
            "timedOut": result.timed_out,
            "cancelled": result.cancelled,
            "truncated": result.truncated,
            "durationS": round(result.duration_s, 3),
        }
        if result.start_error is not None:
            return ToolOutcome.fail(
                f"{self.name} could not start: {result.start_error}; fix "
                f"extensions.tools.{self.name}.argv"
            )
        body = result.stdout.rstrip("\n")
        if result.stderr.strip():
            body = f"{body}\n[stderr]\n{result.stderr.rstrip()}" if body else result.stderr.rstrip()
        body = body or "(no output)"
        if result.truncated:
            body += f"\n[output cut to {limit} bytes: the head and the tail are kept]"
        if result.ok:
            return ToolOutcome.ok(body, data=data)
        if result.timed_out:
            status = f"stopped after {self.spec.timeout:g}s (timeout)"
        elif result.cancelled:
            status = "cancelled by the user"
        else:
            status = f"exit code {result.exit_code}"
        failed = ToolOutcome.fail(f"{self.name} failed ({status})\n{body}")
        failed.data = data
        return failed


def build_script_tool(root: Path, name: str, spec: ScriptToolConfig, source: Source) -> ScriptTool:
    """The tool for one declaration; :class:`ScriptToolProblem` when it cannot be one."""
    key = f"extensions.tools.{name}"
    if not NAME.match(name):
        raise ScriptToolProblem(
            f"{key}: a tool name is a letter then letters, digits, '_' or '-' (at most 64); "
            "rename it"
        )
    schema = spec.parameters
    if schema.get("type") != "object":
        raise ScriptToolProblem(
            f'{key}.parameters: the arguments schema must be {{"type": "object", ...}}; '
            f"got type {json.dumps(schema.get('type'))}"
        )
    from jsonschema.exceptions import SchemaError

    try:
        args_model = _args_model(name, schema)
    except SchemaError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        raise ScriptToolProblem(
            f"{key}.parameters is not valid JSON Schema at {where}: {error.message}"
        ) from None
    cwd = (root / spec.cwd).resolve()
    if not cwd.is_relative_to(root.resolve()):
        raise ScriptToolProblem(f"{key}.cwd: {spec.cwd!r} is outside the project; use a subfolder")
    return ScriptTool(name, spec, source, args_model, cwd)


def _properties(spec: ScriptToolConfig) -> set[str]:
    properties = spec.parameters.get("properties")
    return set(properties) if isinstance(properties, dict) else set()


def _fill(item: str, names: list[str], arguments: dict[str, Any]) -> str:
    return PLACEHOLDER.sub(lambda m: _as_text(arguments[m[1]]) if m[1] in names else m[0], item)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _argument_env(tool: str, root: Path, arguments: dict[str, Any]) -> dict[str, str]:
    env = {"IPUARO_TOOL": tool, "IPUARO_PROJECT": str(root)}
    for key, value in arguments.items():
        env["IPUARO_ARG_" + re.sub(r"[^A-Za-z0-9]", "_", key).upper()] = _as_text(value)
    return env
