"""What the model is told about the environment (``env`` requests, import-error auto-context):
Python and Node versions, the project's virtual environment, its package manager and manifests.

Only facts that need no project code to run: the interpreter running ipuaro, ``node --version``
when Node is installed, a venv's ``pyvenv.cfg``, and which manifest and lock files exist.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path

from ipuaro.domain.repofiles import CONFIG_FILE_LIMIT, read_repo_bytes

MANIFESTS = (
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "requirements.txt",
    "requirements-dev.txt",
    "Pipfile",
    "package.json",
    "tsconfig.json",
)
LOCKS = {
    "uv.lock": "uv",
    "poetry.lock": "poetry",
    "Pipfile.lock": "pipenv",
    "pdm.lock": "pdm",
    "package-lock.json": "npm",
    "yarn.lock": "yarn",
    "pnpm-lock.yaml": "pnpm",
    "bun.lockb": "bun",
    "bun.lock": "bun",
}
VENV_DIRS = (".venv", "venv", "env", ".env-py")


def manifests(root: Path) -> list[str]:
    """Manifest files at the project root (requirements*.txt included)."""
    found = [name for name in MANIFESTS if (root / name).is_file()]
    found += sorted(
        p.name for p in root.glob("requirements*.txt") if p.is_file() and p.name not in found
    )
    return found


def lock_files(root: Path) -> list[str]:
    return [name for name in LOCKS if (root / name).is_file()]


def package_managers(root: Path) -> list[str]:
    managers = [LOCKS[name] for name in lock_files(root)]
    js = ("npm", "yarn", "pnpm", "bun")
    if not any(m in managers for m in js) and (root / "package.json").is_file():
        managers.append("npm")
    if not any(m in managers for m in ("uv", "poetry", "pipenv", "pdm")) and (
        (root / "pyproject.toml").is_file() or any(root.glob("requirements*.txt"))
    ):
        managers.append("pip")
    return list(dict.fromkeys(managers))


def _venv(root: Path) -> str:
    for name in VENV_DIRS:
        config = root / name / "pyvenv.cfg"
        if not config.is_file():
            continue
        version = ""
        try:
            text = read_repo_bytes(config, CONFIG_FILE_LIMIT).decode("utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("version", "version_info"):
                version = value.strip()
        return f"{name}/ (Python {version or 'unknown'})"
    return "none found (.venv, venv)"


def _node_version() -> str:
    node = shutil.which("node")
    if node is None:
        return "not installed"
    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=3)
    except (OSError, subprocess.SubprocessError) as error:
        return f"installed, version unknown ({error})"
    return done.stdout.strip() or "installed, version unknown"


def describe_environment(root: Path) -> str:
    lines = [
        f"os: {platform.system()} {platform.release()}",
        f"python (running ipuaro): {sys.version.split()[0]}",
        f"project venv: {_venv(root)}",
        f"node: {_node_version()}",
        f"package manager: {', '.join(package_managers(root)) or 'unknown'}",
        f"manifests: {', '.join(manifests(root)) or 'none'}",
        f"lock files: {', '.join(lock_files(root)) or 'none'}",
    ]
    return "\n".join(lines)
