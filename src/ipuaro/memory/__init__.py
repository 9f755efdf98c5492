"""Engineering memory: user and project preferences with whitelisted, typed keys, the model's
``memory_patch`` checked before it is applied, and the block the model is shown.

- ``keys``: the whitelist (13 keys, each typed) and the value checks;
- ``files``: the user's ``preferences.json`` and the project's ``.ipuaro/project.json``, read
  without failing and written atomically;
- ``book``: both files as one :class:`EngineeringMemory` and the ENGINEERING_MEMORY block;
- ``patch``: a ``memory_patch`` sorted into changes / unchanged / dropped / invalid, and applied.

This package decides nothing about asking: the core shows the changes and asks the user.
"""

from ipuaro.memory.book import (
    MAX_BLOCK_BYTES,
    EngineeringMemory,
    Entry,
    default_commands_to_run,
    load_memory,
    project_value,
    render_block,
)
from ipuaro.memory.files import PROJECT_FILE, USER_FILE, MemoryFileError, project_file, user_file
from ipuaro.memory.keys import KEYS, InvalidValue, KeySpec, MemoryValue, parse_text, spec_for
from ipuaro.memory.patch import Change, PatchCheck, PatchReport, apply_changes, check_patch

__all__ = [
    "KEYS",
    "MAX_BLOCK_BYTES",
    "PROJECT_FILE",
    "USER_FILE",
    "Change",
    "EngineeringMemory",
    "Entry",
    "InvalidValue",
    "KeySpec",
    "MemoryFileError",
    "MemoryValue",
    "PatchCheck",
    "PatchReport",
    "apply_changes",
    "check_patch",
    "default_commands_to_run",
    "load_memory",
    "parse_text",
    "project_file",
    "project_value",
    "render_block",
    "spec_for",
    "user_file",
]
