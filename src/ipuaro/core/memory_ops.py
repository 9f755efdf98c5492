"""The workspace's engineering-memory operations (a group of ``Workspace`` methods).

A mixin over two workspace facts — the project ``root`` and the ``options`` (their
environment) — and its ``ask`` function; the work is in ``core.memory``.
"""

from __future__ import annotations

from abc import abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ipuaro.core.decisions import Answer, Question
    from ipuaro.core.options import WorkspaceOptions
    from ipuaro.memory import EngineeringMemory, PatchReport


class MemoryOperations:
    root: Path
    options: WorkspaceOptions

    @abstractmethod
    async def ask(self, question: Question) -> Answer:
        """Provided by the ``Workspace``."""

    def engineering_memory(self) -> EngineeringMemory:
        """The user's and the project's remembered preferences as the files say now (values
        that cannot be used are in ``.problems``, naming the file, the key and the fix)."""
        from ipuaro.memory import load_memory

        return load_memory(self.root, self.options.environ)

    async def propose_memory_patch(self, patch: object, source: str) -> PatchReport:
        """A ``memory_patch`` from the model (``remember``) or a plan: keys off the whitelist
        are dropped and wrong types refused (both reported); the changes are shown to the user
        (:class:`~ipuaro.core.decisions.ApplyMemory`) and written only when confirmed."""
        from ipuaro.core.memory import propose

        return await propose(self.root, self.options.environ, self.ask, patch, source)

    async def set_memory(self, key: str, value: str) -> PatchReport:
        """The user's own ``/memory set KEY VALUE``: checked like a patch, written at once."""
        from ipuaro.core.memory import set_value

        return await set_value(self.root, self.options.environ, key, value)

    async def unset_memory(self, key: str) -> PatchReport:
        """The user's own ``/memory unset KEY``."""
        from ipuaro.core.memory import set_value

        return await set_value(self.root, self.options.environ, key, None)
