"""``[E] Edit``: the proposed content opens in ``$VISUAL`` / ``$EDITOR``; what the user saves is
what gets applied.

Each file is written to a temporary file with the same name (so the editor picks the right
syntax), the editor runs with the terminal handed over (``App.suspend``), and the file is read
back. A non-zero exit or a missing editor binary cancels the edit; the diff stays waiting.
With no editor configured the app opens its own editor screen instead (see ``screens.editor``).
"""

from __future__ import annotations

import asyncio
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ipuaro.domain.errors import IpuaroError

if TYPE_CHECKING:
    from textual.app import App


class EditorFailed(IpuaroError):
    """The editor could not run or exited with an error; nothing is applied."""


@dataclass(frozen=True)
class EditorCommand:
    argv: tuple[str, ...]

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> EditorCommand | None:
        """``$VISUAL`` then ``$EDITOR`` (either may carry arguments, e.g. ``code --wait``)."""
        for name in ("VISUAL", "EDITOR"):
            value = environ.get(name, "").strip()
            if value:
                try:
                    argv = tuple(shlex.split(value))
                except ValueError as error:
                    raise EditorFailed(f"${name} cannot be parsed ({error}): {value!r}") from None
                if argv:
                    return cls(argv)
        return None


async def run_editor(app: App[Any], command: EditorCommand, path: Path) -> int:
    """Run the editor on ``path`` with the terminal handed over; its exit code."""
    from textual.app import SuspendNotSupported

    argv = [*command.argv, str(path)]
    try:
        with app.suspend():
            try:
                return subprocess.call(argv)
            except OSError as error:
                raise EditorFailed(f"cannot run {argv[0]}: {error}") from None
    except SuspendNotSupported:
        # No terminal to hand over (tests, a headless driver): run it detached from one.
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError as error:
            raise EditorFailed(f"cannot run {argv[0]}: {error}") from None
        return await process.wait()


async def edit_texts(
    app: App[Any], command: EditorCommand, texts: Mapping[str, str]
) -> dict[str, str]:
    """Open each ``path -> proposed text`` in the editor; the saved texts by path."""
    edited: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="ipuaro-edit-") as folder:
        for index, (path, text) in enumerate(texts.items()):
            # One folder per file keeps the real file name (syntax detection) without clashes.
            target = Path(folder) / str(index) / PurePosixPath(path).name
            target.parent.mkdir()
            target.write_text(text, encoding="utf-8", newline="")
            code = await run_editor(app, command, target)
            if code != 0:
                raise EditorFailed(f"{command.argv[0]} exited with code {code}; nothing applied")
            try:
                with target.open(encoding="utf-8", newline="") as saved:
                    edited[path] = saved.read()
            except (OSError, UnicodeDecodeError) as error:
                raise EditorFailed(f"cannot read back {path}: {error}") from None
    return edited
