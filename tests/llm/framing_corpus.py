"""Replies that show a tool call as an example, and replies that really call, in every text shape.

Each case is labelled by hand: ``real`` is True when the reply means to run the call now. The
shapes are the ones small models write (see toolcall_corpus.py); the phrasings are English with
some Russian and Chinese, the languages of the project's users. ``test_framing_corpus`` reports
precision and recall of "is a call" over all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

ALLOWED = frozenset(
    {"get_lines", "replace", "delete_file", "grep_search", "run_command", "edit_file", "read_file"}
)


@dataclass(frozen=True)
class Labelled:
    id: str
    shape: str
    """fence | tag_json | tag_xml | function_tag | name_tag | react | bare_json"""
    lang: str
    real: bool
    text: str


GET = '{"name": "get_lines", "arguments": {"path": "src/cart.ts", "start": 1, "end": 40}}'
DELETE = '{"name": "delete_file", "arguments": {"path": "src/legacy.ts"}}'
REPLACE = (
    '{"name": "replace", "arguments": {"path": "src/cart.ts", "old": "return a + b;", '
    '"new": "return a - b;"}}'
)
GREP = '{"name": "grep_search", "arguments": {"pattern": "applyDiscount"}}'
RUN = '{"name": "run_command", "arguments": {"command": "npm test"}}'
XML_DELETE = '<tool_call name="delete_file">\n<path>src/legacy.ts</path>\n</tool_call>'
XML_GET = '<tool_call name="get_lines">\n<path>src/cart.ts</path>\n</tool_call>'
FUNC_REPLACE = (
    '<function=replace>{"path": "src/cart.ts", "old": "a + b", "new": "a - b"}</function>'
)
FUNC_GET = '<function=get_lines>{"path": "src/cart.ts"}</function>'
NAME_DELETE = "<delete_file>\n<path>src/legacy.ts</path>\n</delete_file>"
NAME_GET = "<get_lines>\n<path>src/cart.ts</path>\n</get_lines>"
REACT_DELETE = 'Action: delete_file\nAction Input: {"path": "src/legacy.ts"}'
REACT_GET = 'Action: get_lines\nAction Input: {"path": "src/cart.ts"}'
BARE_DELETE = '{"tool": "delete_file", "arguments": {"path": "src/legacy.ts"}}'
BARE_GET = '{"tool": "get_lines", "arguments": {"path": "src/cart.ts"}}'


def _fence(body: str, lang: str = "json") -> str:
    return f"```{lang}\n{body}\n```"


def _tag(body: str) -> str:
    return f"<tool_call>\n{body}\n</tool_call>"


EXAMPLES: list[Labelled] = [
    Labelled(
        "fence_for_example",
        "fence",
        "en",
        False,
        "To delete a file you call delete_file. For example:\n\n"
        + _fence(DELETE)
        + "\n\nTell me which file you want removed.",
    ),
    Labelled(
        "fence_example_only", "fence", "en", False, "Example only (do not run):\n" + _fence(REPLACE)
    ),
    Labelled(
        "fence_would_look",
        "fence",
        "en",
        False,
        "A call to replace would look like this:\n"
        + _fence(REPLACE)
        + "\nThe `old` text must match the file exactly.",
    ),
    Labelled(
        "fence_not_calling",
        "fence",
        "en",
        False,
        "I am not calling anything now; I just want to show the shape of a read.\n\n"
        + _fence(GET)
        + "\n\nDoes that answer your question?",
    ),
    Labelled(
        "fence_trailer_example",
        "fence",
        "en",
        False,
        "Here it is:\n" + _fence(DELETE) + "\nThis is just an example, nothing was deleted.",
    ),
    Labelled(
        "fence_hypothetical",
        "fence",
        "en",
        False,
        "Hypothetically, if I wanted to remove the legacy module I'd send:\n" + _fence(DELETE),
    ),
    Labelled(
        "fence_format_explained",
        "fence",
        "en",
        False,
        "The tool-call format is a JSON object with a name and arguments, e.g.\n" + _fence(GREP),
    ),
    Labelled(
        "fence_ru_naprimer",
        "fence",
        "ru",
        False,
        "Чтобы удалить файл, используется delete_file, например:\n" + _fence(DELETE),
    ),
    Labelled(
        "fence_zh_shili", "fence", "zh", False, "调用格式如下（仅为示例）：\n" + _fence(REPLACE)
    ),
    Labelled(
        "tag_json_for_instance",
        "tag_json",
        "en",
        False,
        "For instance, reading the cart looks like this:\n" + _tag(GET),
    ),
    Labelled(
        "tag_json_do_not_run",
        "tag_json",
        "en",
        False,
        "Do not run this, it only shows how a call is written:\n" + _tag(DELETE),
    ),
    Labelled(
        "tag_json_ru_ne_zapuskay",
        "tag_json",
        "ru",
        False,
        "Вот пример вызова, не запускайте его:\n" + _tag(DELETE),
    ),
    Labelled(
        "tag_json_zh_lizi", "tag_json", "zh", False, "举个例子：\n" + _tag(RUN) + "\n以上只是示例。"
    ),
    Labelled(
        "tag_xml_illustration",
        "tag_xml",
        "en",
        False,
        "As an illustration, the XML spelling of a delete is:\n" + XML_DELETE,
    ),
    Labelled(
        "tag_xml_in_xml_fence",
        "tag_xml",
        "en",
        False,
        "Here is an example of the XML call syntax:\n" + _fence(XML_DELETE, "xml"),
    ),
    Labelled(
        "tag_xml_zh_buyao",
        "tag_xml",
        "zh",
        False,
        "请不要执行下面的调用，它只是格式说明：\n" + XML_DELETE,
    ),
    Labelled(
        "function_tag_example_colon", "function_tag", "en", False, "Example:\n" + FUNC_REPLACE
    ),
    Labelled(
        "function_tag_you_would_call",
        "function_tag",
        "en",
        False,
        "You would call replace like so:\n" + FUNC_REPLACE + "\nwith your own old and new text.",
    ),
    Labelled(
        "name_tag_how_to_call",
        "name_tag",
        "en",
        False,
        "Here's how to call delete_file in this format:\n" + NAME_DELETE,
    ),
    Labelled(
        "name_tag_ru_gipotet",
        "name_tag",
        "ru",
        False,
        "Гипотетически вызов выглядел бы так:\n" + NAME_DELETE,
    ),
    Labelled(
        "react_example",
        "react",
        "en",
        False,
        "An example of the ReAct format:\n" + REACT_DELETE + "\nObservation: the file is deleted",
    ),
    Labelled(
        "react_zh_jiashe", "react", "zh", False, "假设要删除旧文件，可以这样写：\n" + REACT_DELETE
    ),
    Labelled(
        "bare_json_eg",
        "bare_json",
        "en",
        False,
        "Calls are plain JSON, e.g. " + BARE_DELETE + " and the result comes back.",
    ),
    Labelled(
        "bare_json_not_calling",
        "bare_json",
        "en",
        False,
        "I'm not calling any tool in this reply. A delete would be "
        + BARE_DELETE
        + " once you confirm.",
    ),
    Labelled(
        "bare_json_ru_ne_vyzyvayu",
        "bare_json",
        "ru",
        False,
        "Сейчас ничего не вызываю. Для справки: " + BARE_DELETE,
    ),
    Labelled(
        "fence_example_usage_after_answer",
        "fence",
        "en",
        False,
        "The function is exported from src/cart.ts.\n\nExample usage of the read tool:\n"
        + _fence(GET),
    ),
]

REAL: list[Labelled] = [
    Labelled("fence_let_me_read", "fence", "en", True, "Let me read the file:\n" + _fence(GET)),
    Labelled(
        "fence_delete_after_confirm",
        "fence",
        "en",
        True,
        "The module is unused, so I will delete it now.\n" + _fence(DELETE),
    ),
    Labelled(
        "fence_replace_then_tests",
        "fence",
        "en",
        True,
        "I'll fix the sign:\n" + _fence(REPLACE) + "\nAfter that I will run the tests.",
    ),
    Labelled(
        "fence_example_directory",
        "fence",
        "en",
        True,
        "Let me look at the example config in examples/:\n"
        + _fence('{"name": "get_lines", "arguments": {"path": "examples/config.ts"}}'),
    ),
    Labelled("fence_ru_prochitayu", "fence", "ru", True, "Сначала прочитаю файл:\n" + _fence(GET)),
    Labelled("fence_zh_duqu", "fence", "zh", True, "先读取这个文件：\n" + _fence(GET)),
    Labelled(
        "fence_unlabelled",
        "fence",
        "en",
        True,
        "Searching for the callers.\n```\n" + GREP + "\n```",
    ),
    Labelled("tag_json_plain", "tag_json", "en", True, _tag(GET)),
    Labelled(
        "tag_json_with_thought",
        "tag_json",
        "en",
        True,
        "The discount is applied twice; I need to see where.\n" + _tag(GREP),
    ),
    Labelled(
        "tag_json_ru",
        "tag_json",
        "ru",
        True,
        "Удаляю устаревший модуль, как вы просили.\n" + _tag(DELETE),
    ),
    Labelled(
        "tag_json_zh",
        "tag_json",
        "zh",
        True,
        "好的，我来运行测试。\n" + _tag(RUN) + "\n运行后我会汇报结果。",
    ),
    Labelled("tag_xml_plain", "tag_xml", "en", True, "Reading it now.\n" + XML_GET),
    Labelled(
        "tag_xml_delete",
        "tag_xml",
        "en",
        True,
        "You asked me to remove the legacy module; doing that.\n" + XML_DELETE,
    ),
    Labelled("tag_xml_zh", "tag_xml", "zh", True, "我先看看购物车的代码。\n" + XML_GET),
    Labelled(
        "function_tag_plain", "function_tag", "en", True, "Applying the fix.\n" + FUNC_REPLACE
    ),
    Labelled("function_tag_read", "function_tag", "en", True, FUNC_GET),
    Labelled("name_tag_plain", "name_tag", "en", True, "Let me check it.\n" + NAME_GET),
    Labelled("name_tag_ru", "name_tag", "ru", True, "Посмотрю код корзины.\n" + NAME_GET),
    Labelled(
        "react_plain", "react", "en", True, "Thought: I should read the cart first.\n" + REACT_GET
    ),
    Labelled(
        "react_delete",
        "react",
        "en",
        True,
        "Thought: the user confirmed the deletion.\n" + REACT_DELETE,
    ),
    Labelled("react_zh", "react", "zh", True, "Thought: 需要先读取文件。\n" + REACT_GET),
    Labelled("bare_json_plain", "bare_json", "en", True, BARE_GET),
    Labelled("bare_json_lead_in", "bare_json", "en", True, "Next, the cart file. " + BARE_GET),
    Labelled("bare_json_ru", "bare_json", "ru", True, "Теперь удалю файл. " + BARE_DELETE),
    Labelled(
        "fence_format_the_file",
        "fence",
        "en",
        True,
        "The indentation is off; let me format the file by replacing the body.\n" + _fence(REPLACE),
    ),
    Labelled(
        "fence_then_example_later",
        "fence",
        "en",
        True,
        "Let me read the cart.\n"
        + _fence(GET)
        + "\nThen I'll look at the tests, which show an example of the discount.",
    ),
]

CORPUS: list[Labelled] = EXAMPLES + REAL
