"""Replies in the shapes models really write, each with the calls (and errors) expected.

``errors`` lists the tool each parse error names (None when it names none). ``visible`` is the
exact visible text when the case checks it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ALLOWED = frozenset(
    {
        "get_lines",
        "edit_lines",
        "create_file",
        "grep_search",
        "find_files",
        "git_status",
        "run_command",
        "read_file",  # an alias: the caller passes aliases as accepted names
    }
)


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    errors: list[str | None] = field(default_factory=list)
    visible: str | None = None


CREATE_PY = {"path": "app.py", "content": "import os\n\nprint(os.getcwd())\n"}

CORPUS: list[Case] = [
    # --- Qwen / Hermes <tool_call>{json}</tool_call> ---------------------------------------
    Case(
        "qwen_tag",
        '<tool_call>\n{"name": "get_lines", "arguments": {"path": "src/index.ts", "start": 1, '
        '"end": 40}}\n</tool_call>',
        [("get_lines", {"path": "src/index.ts", "start": 1, "end": 40})],
        visible="",
    ),
    Case(
        "qwen_tag_prose_before_and_after",
        "Let me look at the entry point first.\n<tool_call>\n"
        '{"name": "get_lines", "arguments": {"path": "src/index.ts"}}\n</tool_call>\n'
        "I will summarise after reading.",
        [("get_lines", {"path": "src/index.ts"})],
        visible="Let me look at the entry point first.\n\nI will summarise after reading.",
    ),
    Case(
        "qwen_two_tags",
        '<tool_call>\n{"name": "get_lines", "arguments": {"path": "a.ts"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "grep_search", "arguments": {"pattern": "export"}}\n</tool_call>',
        [("get_lines", {"path": "a.ts"}), ("grep_search", {"pattern": "export"})],
        visible="",
    ),
    Case(
        "qwen_two_calls_in_one_block",
        '<tool_call>\n{"name": "get_lines", "arguments": {"path": "a.ts"}}\n'
        '{"name": "get_lines", "arguments": {"path": "b.ts"}}\n</tool_call>',
        [("get_lines", {"path": "a.ts"}), ("get_lines", {"path": "b.ts"})],
    ),
    Case(
        "qwen_list_in_one_block",
        '<tool_call>[{"name": "git_status", "arguments": {}}, '
        '{"name": "find_files", "arguments": {"pattern": "*.md"}}]</tool_call>',
        [("git_status", {}), ("find_files", {"pattern": "*.md"})],
    ),
    Case(
        "qwen_missing_closing_tag",
        '<tool_call>\n{"name": "git_status", "arguments": {}}',
        [("git_status", {})],
        visible="",
    ),
    Case(
        "qwen_missing_closing_tag_then_prose",
        '<tool_call>\n{"name": "git_status", "arguments": {}}\nThen I will check the diff.',
        [("git_status", {})],
        visible="Then I will check the diff.",
    ),
    Case(
        "qwen_trailing_commas",
        '<tool_call>{"name": "grep_search", "arguments": {"pattern": "TODO", '
        '"include": ["*.ts",],},}</tool_call>',
        [("grep_search", {"pattern": "TODO", "include": ["*.ts"]})],
    ),
    Case(
        "qwen_single_quotes",
        "<tool_call>{'name': 'get_lines', 'arguments': {'path': 'src/app.ts'}}</tool_call>",
        [("get_lines", {"path": "src/app.ts"})],
    ),
    Case(
        "qwen_unescaped_newlines_in_string",
        '<tool_call>\n{"name": "create_file", "arguments": {"path": "app.py", "content": '
        '"import os\n\nprint(os.getcwd())\n"}}\n</tool_call>',
        [("create_file", CREATE_PY)],
    ),
    Case(
        "qwen_arguments_as_json_string",
        '<tool_call>{"name": "get_lines", "arguments": "{\\"path\\": \\"a.ts\\"}"}</tool_call>',
        [("get_lines", {"path": "a.ts"})],
    ),
    Case(
        "qwen_python_literals",
        '<tool_call>{"name": "grep_search", "arguments": {"pattern": "x", '
        '"case_sensitive": True, "glob": None}}</tool_call>',
        [("grep_search", {"pattern": "x", "case_sensitive": True, "glob": None})],
    ),
    Case(
        "qwen_function_wrapper",
        '<tool_call>{"type": "function", "function": {"name": "get_lines", '
        '"arguments": {"path": "a"}}}</tool_call>',
        [("get_lines", {"path": "a"})],
    ),
    Case(
        "qwen_unknown_tool",
        '<tool_call>{"name": "delete_repo", "arguments": {}}</tool_call>',
        errors=["delete_repo"],
        visible="",
    ),
    Case(
        "qwen_truncated_json",
        'Writing the file.\n<tool_call>\n{"name": "create_file", "arguments": {"path": "a.py", '
        '"content": "def main():\n    pri',
        errors=["create_file"],
        visible="Writing the file.",
    ),
    Case(
        "qwen_not_json_at_all",
        "<tool_call>get_lines src/a.ts</tool_call>",
        errors=["get_lines"],
    ),
    # --- bare JSON in the prose -------------------------------------------------------------
    Case(
        "bare_json_only",
        '{"name": "git_status", "arguments": {}}',
        [("git_status", {})],
        visible="",
    ),
    Case(
        "bare_json_tool_parameters",
        '{"tool": "find_files", "parameters": {"pattern": "**/*.test.ts"}}',
        [("find_files", {"pattern": "**/*.test.ts"})],
    ),
    Case(
        "bare_json_prose_before_and_after",
        'I need the file list.\n{"name": "find_files", "arguments": {"pattern": "src/**"}}\n'
        "After that I will decide.",
        [("find_files", {"pattern": "src/**"})],
        visible="I need the file list.\n\nAfter that I will decide.",
    ),
    Case(
        "bare_json_two_objects",
        'First {"name": "get_lines", "arguments": {"path": "a.ts"}} and then '
        '{"name": "get_lines", "arguments": {"path": "b.ts"}}.',
        [("get_lines", {"path": "a.ts"}), ("get_lines", {"path": "b.ts"})],
    ),
    Case(
        "bare_json_list",
        '[{"name": "get_lines", "arguments": {"path": "a.ts"}}, '
        '{"name": "git_status", "arguments": {}}]',
        [("get_lines", {"path": "a.ts"}), ("git_status", {})],
        visible="",
    ),
    Case(
        "bare_json_that_is_data",
        'The package.json says {"name": "my-app", "version": "1.0.0"}.',
        visible='The package.json says {"name": "my-app", "version": "1.0.0"}.',
    ),
    Case(
        "bare_json_unknown_tool",
        '{"name": "rm_rf", "arguments": {"path": "/"}}',
        errors=["rm_rf"],
    ),
    Case(
        "bare_json_flat_arguments",
        '{"tool": "get_lines", "path": "src/a.ts", "start": 5}',
        [("get_lines", {"path": "src/a.ts", "start": 5})],
    ),
    Case(
        "bare_json_trailing_comma_after_prose",
        'Sure. {"name": "get_lines", "arguments": {"path": "a.ts",}}',
        [("get_lines", {"path": "a.ts"})],
        visible="Sure.",
    ),
    Case(
        "bare_json_truncated",
        'Creating it now: {"name": "create_file", "arguments": {"path": "a.py", '
        '"content": "import os\n',
        errors=["create_file"],
        visible="Creating it now:",
    ),
    Case(
        "bare_json_langchain_action",
        '{"action": "grep_search", "action_input": {"pattern": "fetch("}}',
        [("grep_search", {"pattern": "fetch("})],
    ),
    Case(
        "bare_json_openai_tool_calls_wrapper",
        '{"tool_calls": [{"function": {"name": "get_lines", '
        '"arguments": "{\\"path\\": \\"x.ts\\"}"}}]}',
        [("get_lines", {"path": "x.ts"})],
    ),
    Case(
        "bare_json_unescaped_inner_quotes",
        '{"name": "create_file", "arguments": {"path": "a.txt", "content": "say "hi" now"}}',
        [("create_file", {"path": "a.txt", "content": 'say "hi" now'})],
    ),
    Case(
        "bare_json_regex_backslashes",
        '{"name": "grep_search", "arguments": {"pattern": "\\d+\\.ts"}}',
        [("grep_search", {"pattern": "\\d+\\.ts"})],
    ),
    Case(
        "mistral_tool_calls_marker",
        '[TOOL_CALLS][{"name": "get_lines", "arguments": {"path": "a"}}]',
        [("get_lines", {"path": "a"})],
        visible="",
    ),
    # --- fenced blocks ----------------------------------------------------------------------
    Case(
        "fenced_json",
        'I will search.\n```json\n{"name": "grep_search", "arguments": {"pattern": "useEffect"}}'
        "\n```",
        [("grep_search", {"pattern": "useEffect"})],
        visible="I will search.",
    ),
    Case(
        "fenced_without_language",
        '```\n{"tool": "git_status", "parameters": {}}\n```',
        [("git_status", {})],
        visible="",
    ),
    Case(
        "fenced_list_of_two_calls",
        '```json\n[\n  {"name": "get_lines", "arguments": {"path": "a.ts"}},\n'
        '  {"name": "get_lines", "arguments": {"path": "b.ts"}}\n]\n```',
        [("get_lines", {"path": "a.ts"}), ("get_lines", {"path": "b.ts"})],
    ),
    Case(
        "fenced_single_quotes_and_trailing_commas",
        "```json\n{'name': 'get_lines', 'arguments': {'path': 'a.ts', 'end': 20,},}\n```",
        [("get_lines", {"path": "a.ts", "end": 20})],
    ),
    Case(
        "fenced_python_is_code_not_a_call",
        '```python\ncall({"name": "get_lines", "arguments": {"path": "a"}})\n```',
        visible='```python\ncall({"name": "get_lines", "arguments": {"path": "a"}})\n```',
    ),
    Case(
        "fenced_json_config_is_data",
        'Set this:\n```json\n{"compilerOptions": {"strict": true}}\n```',
        visible='Set this:\n```json\n{"compilerOptions": {"strict": true}}\n```',
    ),
    Case(
        "fenced_broken_json_naming_a_tool",
        '```json\n{"name": "get_lines", "arguments": {"path": "a.ts" "start": 1}}\n```',
        errors=["get_lines"],
    ),
    # --- the concept's XML ------------------------------------------------------------------
    Case(
        "xml_concept",
        '<tool_call name="get_lines">\n  <path>src/index.ts</path>\n  <start>10</start>\n'
        "  <end>20</end>\n</tool_call>",
        [("get_lines", {"path": "src/index.ts", "start": "10", "end": "20"})],
        visible="",
    ),
    Case(
        "xml_cdata_multiline_content",
        '<tool_call name="edit_lines"><path>src/view.tsx</path><start>3</start><end>4</end>'
        "<content><![CDATA[  return <div>{a && b}</div>;\n}\n]]></content></tool_call>",
        [
            (
                "edit_lines",
                {
                    "path": "src/view.tsx",
                    "start": "3",
                    "end": "4",
                    "content": "  return <div>{a && b}</div>;\n}\n",
                },
            )
        ],
    ),
    Case(
        "xml_multiline_without_cdata",
        '<tool_call name="create_file">\n<path>notes.md</path>\n<content>\n# Notes\n\n- one\n'
        "</content>\n</tool_call>",
        [("create_file", {"path": "notes.md", "content": "# Notes\n\n- one\n"})],
    ),
    Case(
        "xml_missing_closing_tag",
        '<tool_call name="get_lines"><path>a.ts</path>',
        [("get_lines", {"path": "a.ts"})],
        visible="",
    ),
    Case(
        "xml_missing_closing_tag_then_prose",
        '<tool_call name="get_lines"><path>a.ts</path>\nand then I will explain it.',
        [("get_lines", {"path": "a.ts"})],
        visible="and then I will explain it.",
    ),
    Case(
        "xml_unclosed_argument",
        '<tool_call name="create_file"><path>a.ts</path><content><![CDATA[export const',
        errors=["create_file"],
    ),
    Case(
        "xml_two_calls",
        'Reading both.\n<tool_call name="get_lines"><path>a.ts</path></tool_call>\n'
        '<tool_call name="get_lines"><path>b.ts</path></tool_call>',
        [("get_lines", {"path": "a.ts"}), ("get_lines", {"path": "b.ts"})],
        visible="Reading both.",
    ),
    Case(
        "xml_unknown_tool",
        '<tool_call name="format_disk"><drive>C</drive></tool_call>',
        errors=["format_disk"],
    ),
    Case(
        "xml_json_body",
        '<tool_call name="get_lines">{"path": "a.ts", "start": 2}</tool_call>',
        [("get_lines", {"path": "a.ts", "start": 2})],
    ),
    Case(
        "xml_parameter_elements",
        '<tool_call name="grep_search"><parameter name="pattern">foo</parameter>'
        '<parameter name="include">["*.py"]</parameter></tool_call>',
        [("grep_search", {"pattern": "foo", "include": ["*.py"]})],
    ),
    Case(
        "xml_entities_unescaped",
        '<tool_call name="grep_search"><pattern>a &lt; b &amp;&amp; c</pattern></tool_call>',
        [("grep_search", {"pattern": "a < b && c"})],
    ),
    Case(
        "xml_tool_name_as_tag",
        "<get_lines>\n<path>src/a.ts</path>\n</get_lines>",
        [("get_lines", {"path": "src/a.ts"})],
        visible="",
    ),
    Case(
        "xml_tool_call_without_arguments",
        '<tool_call name="git_status"></tool_call>',
        [("git_status", {})],
    ),
    Case(
        "llama_function_tag",
        'Reading. <function=get_lines>{"path": "a.ts"}</function>',
        [("get_lines", {"path": "a.ts"})],
        visible="Reading.",
    ),
    # --- ReAct ------------------------------------------------------------------------------
    Case(
        "react_basic",
        'Thought: I should read the file.\nAction: get_lines\nAction Input: {"path": "src/a.ts"}',
        [("get_lines", {"path": "src/a.ts"})],
        visible="Thought: I should read the file.",
    ),
    Case(
        "react_hallucinated_observation_is_dropped",
        'Thought: read it.\nAction: get_lines\nAction Input: {"path": "a.ts"}\n'
        "Observation: the file exports foo.\nThought: now status.\nAction: git_status\n"
        "Action Input: {}",
        [("get_lines", {"path": "a.ts"})],
        visible="Thought: read it.",
    ),
    Case(
        "react_two_actions",
        'Action: get_lines\nAction Input: {"path": "a.ts"}\nAction: get_lines\n'
        'Action Input: {"path": "b.ts"}',
        [("get_lines", {"path": "a.ts"}), ("get_lines", {"path": "b.ts"})],
    ),
    Case(
        "react_multiline_fenced_input",
        "Thought: make the file.\nAction: create_file\nAction Input:\n```json\n{\n"
        '  "path": "app.py",\n  "content": "import os\\n\\nprint(os.getcwd())\\n"\n}\n```',
        [("create_file", CREATE_PY)],
        visible="Thought: make the file.",
    ),
    Case(
        "react_input_not_json",
        "Action: get_lines\nAction Input: src/a.ts",
        errors=["get_lines"],
    ),
    Case(
        "react_unknown_tool",
        'Action: browse_web\nAction Input: {"url": "https://example.com"}',
        errors=["browse_web"],
    ),
    Case(
        "react_final_answer",
        "Thought: I know this.\nFinal Answer: It returns 42.",
        visible="Thought: I know this.\nFinal Answer: It returns 42.",
    ),
    Case(
        "react_backticked_name",
        'Action: `get_lines`\nAction Input: {"path": "a"}',
        [("get_lines", {"path": "a"})],
    ),
    Case(
        "react_without_input",
        "Thought: check the tree.\nAction: git_status",
        [("git_status", {})],
    ),
    Case(
        "react_single_quoted_input",
        "Action: grep_search\nAction Input: {'pattern': 'TODO',}",
        [("grep_search", {"pattern": "TODO"})],
    ),
    # --- mixed and plain --------------------------------------------------------------------
    Case(
        "alias_name_is_accepted",
        '{"name": "read_file", "arguments": {"path": "a"}}',
        [("read_file", {"path": "a"})],
    ),
    Case(
        "plain_answer",
        "The function returns the sum of both arguments.",
        visible="The function returns the sum of both arguments.",
    ),
    Case(
        "tag_and_react_in_one_reply",
        '<tool_call>{"name": "get_lines", "arguments": {"path": "a"}}</tool_call>\n'
        "Action: git_status\nAction Input: {}",
        [("get_lines", {"path": "a"}), ("git_status", {})],
    ),
    Case(
        "think_block_is_not_a_call",
        '<think>Maybe {"name": "git_status", "arguments": {}}?</think>\n'
        '<tool_call>{"name": "get_lines", "arguments": {"path": "a"}}</tool_call>',
        [("get_lines", {"path": "a"})],
    ),
    Case(
        "valid_and_broken_call_together",
        '<tool_call>{"name": "get_lines", "arguments": {"path": "a"}}</tool_call>\n'
        '<tool_call>{"name": "edit_lines", "arguments": {"path": "a", "start": }</tool_call>',
        [("get_lines", {"path": "a"})],
        errors=["edit_lines"],
    ),
]
