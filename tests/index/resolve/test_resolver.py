"""Every import resolution rule, on the fixture projects and small hand-made trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.index.resolve import jsonc
from ipuaro.index.resolve.resolver import ProjectLayout, Resolution
from ipuaro.index.scan.scanner import scan
from tests.index.conftest import write

APP = "packages/app/src/main.ts"


def layout_for(root: Path) -> ProjectLayout:
    return ProjectLayout.load(root, scan(root, Config()).paths())


@pytest.fixture
def ts_layout(ts_project: Path) -> ProjectLayout:
    return layout_for(ts_project)


@pytest.fixture
def py_layout(py_project: Path) -> ProjectLayout:
    return layout_for(py_project)


@pytest.mark.parametrize(
    ("specifier", "expected"),
    [
        ("./util.js", "packages/app/src/util.ts"),  # .js written in TS source → .ts
        ("./util", "packages/app/src/util.ts"),  # extension probing
        ("./components", "packages/app/src/components/index.tsx"),  # index file
        ("./config.json", "packages/app/src/config.json"),  # exact file
        ("../../shared/src/math", "packages/shared/src/math.ts"),
        ("@shared/logger", "packages/shared/src/logger.ts"),  # paths inherited via extends
        ("@config", "packages/app/src/config.json"),  # exact (non-wildcard) paths entry
        ("lib/format", "lib/format.ts"),  # baseUrl from the extended config
        ("@acme/shared", "packages/shared/src/index.ts"),  # workspace package by name
        ("@acme/shared/strings", "packages/shared/src/strings/index.ts"),  # subpath
        ("@acme/shared/math", "packages/shared/src/math.ts"),
    ],
)
def test_typescript_resolution(ts_layout: ProjectLayout, specifier: str, expected: str) -> None:
    assert ts_layout.resolve(APP, specifier, "typescript") == Resolution(expected, True)


@pytest.mark.parametrize(
    ("specifier", "expected"),
    [
        ("./nope", Resolution(None, True)),  # relative but missing: internal, unresolved
        ("@shared/nothing", Resolution(None, True)),  # alias pattern matched, no file
        ("@acme/shared/nothing", Resolution(None, True)),
        ("react", Resolution(None, False)),
        ("react-dom/client", Resolution(None, False)),
        ("@types/node", Resolution(None, False)),
        ("node:fs", Resolution(None, False)),
    ],
)
def test_typescript_unresolved_and_external(
    ts_layout: ProjectLayout, specifier: str, expected: Resolution
) -> None:
    assert ts_layout.resolve(APP, specifier, "typescript") == expected


def test_javascript_probes_jsx_and_cjs(ts_layout: ProjectLayout) -> None:
    assert ts_layout.resolve("legacy/index.js", "./widget", "javascript").path == (
        "legacy/widget.jsx"
    )
    assert ts_layout.resolve("legacy/index.js", "./old", "javascript").path == "legacy/old.cjs"
    assert ts_layout.resolve("legacy/index.js", "../lib/format.js", "javascript").path == (
        "lib/format.ts"
    )


def test_paths_without_base_url_are_relative_to_their_config(tmp_path: Path) -> None:
    write(tmp_path, "web/tsconfig.json", '{"compilerOptions": {"paths": {"~/*": ["./src/*"]}}}')
    write(tmp_path, "web/src/deep/thing.ts", "export const x = 1;")
    write(tmp_path, "web/src/app.ts", "")
    layout = layout_for(tmp_path)
    assert layout.resolve("web/src/app.ts", "~/deep/thing", "typescript").path == (
        "web/src/deep/thing.ts"
    )


def test_extends_chain_overrides_and_cycles(tmp_path: Path) -> None:
    write(tmp_path, "a.json", '{"extends": "./b.json", "compilerOptions": {"baseUrl": "src"}}')
    write(tmp_path, "b.json", '{"extends": "./a.json", "compilerOptions": {"baseUrl": "lib"}}')
    write(tmp_path, "tsconfig.json", '{"extends": ["./a"]}')
    write(tmp_path, "src/x.ts", "")
    write(tmp_path, "lib/x.ts", "")
    write(tmp_path, "main.ts", "")
    layout = layout_for(tmp_path)
    assert layout.resolve("main.ts", "x", "typescript").path == "src/x.ts"


def test_referenced_config_supplies_aliases(tmp_path: Path) -> None:
    write(
        tmp_path, "tsconfig.json", '{"files": [], "references": [{"path": "./tsconfig.app.json"}]}'
    )
    write(tmp_path, "tsconfig.app.json", '{"compilerOptions": {"paths": {"@/*": ["./src/*"]}}}')
    write(tmp_path, "src/lib/api.ts", "")
    write(tmp_path, "src/main.ts", "")
    layout = layout_for(tmp_path)
    assert layout.resolve("src/main.ts", "@/lib/api", "typescript").path == "src/lib/api.ts"


def test_package_exports_map(tmp_path: Path) -> None:
    write(
        tmp_path,
        "packages/ui/package.json",
        json.dumps(
            {
                "name": "ui",
                "exports": {".": {"import": "./src/main.ts"}, "./icons/*": "./src/icons/*.tsx"},
            }
        ),
    )
    write(tmp_path, "packages/ui/src/main.ts", "")
    write(tmp_path, "packages/ui/src/icons/star.tsx", "")
    write(tmp_path, "apps/web/page.ts", "")
    layout = layout_for(tmp_path)
    assert layout.resolve("apps/web/page.ts", "ui", "typescript").path == "packages/ui/src/main.ts"
    assert layout.resolve("apps/web/page.ts", "ui/icons/star", "typescript").path == (
        "packages/ui/src/icons/star.tsx"
    )


def test_jsonc_comments_and_trailing_commas() -> None:
    text = '{\n // c\n "a": "http://x/*y*/", /* block */ "b": [1, 2,],\n}'
    assert jsonc.loads(text) == {"a": "http://x/*y*/", "b": [1, 2]}


@pytest.mark.parametrize(
    ("from_path", "specifier", "name", "expected"),
    [
        ("src/acme/core.py", ".", "utils", "src/acme/utils.py"),  # from . import utils
        ("src/acme/core.py", ".utils", "helper", "src/acme/utils.py"),
        ("src/acme/core.py", "acme.models", "User", "src/acme/models/__init__.py"),  # src-layout
        ("src/acme/sub/deep.py", "..models", "user", "src/acme/models/user.py"),  # from .. import
        ("src/acme/sub/deep.py", "..models.user", "User", "src/acme/models/user.py"),
        ("src/acme/__init__.py", ".core", "run", "src/acme/core.py"),  # package's own folder
        ("tests/test_core.py", "acme.core", "acme.core", "src/acme/core.py"),
        ("tests/test_core.py", "acme", "utils", "src/acme/utils.py"),
    ],
)
def test_python_resolution(
    py_layout: ProjectLayout, from_path: str, specifier: str, name: str, expected: str
) -> None:
    assert py_layout.resolve(from_path, specifier, "python", name) == Resolution(expected, True)


@pytest.mark.parametrize(
    ("from_path", "specifier", "expected"),
    [
        ("src/acme/sub/deep.py", "...outside", Resolution(None, True)),
        ("tests/test_core.py", "acme.missing", Resolution(None, True)),
        ("tests/test_core.py", "requests", Resolution(None, False)),
        ("src/acme/core.py", "os", Resolution(None, False)),
        ("src/acme/core.py", "......", Resolution(None, True)),  # climbs above the root
    ],
)
def test_python_unresolved_and_external(
    py_layout: ProjectLayout, from_path: str, specifier: str, expected: Resolution
) -> None:
    assert py_layout.resolve(from_path, specifier, "python", "x") == expected


def test_python_test_folder_root_like_django(tmp_path: Path) -> None:
    write(tmp_path, "django/__init__.py", "")
    write(tmp_path, "django/db/__init__.py", "")
    write(tmp_path, "django/db/models/__init__.py", "")
    write(tmp_path, "tests/runtests.py", "")
    write(tmp_path, "tests/admin_views/__init__.py", "")
    write(tmp_path, "tests/admin_views/models.py", "")
    layout = layout_for(tmp_path)
    assert layout.resolve("tests/runtests.py", "admin_views.models", "python").path == (
        "tests/admin_views/models.py"
    )
    assert layout.resolve("tests/runtests.py", "django.db", "python", "models").path == (
        "django/db/models/__init__.py"
    )


def test_layout_update_sees_new_files(py_layout: ProjectLayout) -> None:
    assert py_layout.resolve("tests/test_core.py", "acme.missing", "python").path is None
    py_layout.update(added=["src/acme/missing.py"])
    assert py_layout.resolve("tests/test_core.py", "acme.missing", "python").path == (
        "src/acme/missing.py"
    )
    py_layout.update(removed=["src/acme/missing.py"])
    assert py_layout.resolve("tests/test_core.py", "acme.missing", "python").path is None
