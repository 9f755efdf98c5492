"""The validated configuration kept between runs (issue 27): served again only while every
input is the same, equal to what the loader builds, never stale, never in the way of an error."""

from __future__ import annotations

import inspect
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from ipuaro.config import cache, loader, schema
from ipuaro.config.cache import CACHE_DIR_NAME, load_config_cached
from ipuaro.config.describe import field_docs
from ipuaro.config.loader import ConfigError, load_config


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """(project root, user config dir, data dir), the environment pointing at them."""
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    user = tmp_path / "user"
    user.mkdir()
    data = tmp_path / "data"
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(user))
    monkeypatch.setenv("IPUARO_DATA_DIR", str(data))
    return project, user, data


def _entries(data: Path) -> list[Path]:
    folder = data / CACHE_DIR_NAME
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def test_a_cached_config_equals_the_loaded_one_down_to_notices_and_private_state(
    dirs: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, user, data = dirs
    (user / "config.json").write_text(
        json.dumps(
            {
                "llm": {"model": "m1", "temperature": 0.3, "contextWindow": 8192},
                "store": {"path": "stores/x.db"},
                "mcp": {"servers": {"git": {"command": "uvx", "env": {"T": "${GIT_TOKEN}"}}}},
                "extensions": {"tools": {"lint": {"description": "lint", "argv": ["ruff"]}}},
            }
        )
    )
    (project / ".ipuaro.json").write_text(
        json.dumps(
            {
                "project": {"ignorePatterns": ["vendor"], "protectedPaths": ["*.sqlite"]},
                "redis": {"host": "elsewhere"},  # not the project's to set: a notice
                "mcp": {"servers": {"docs": {"url": "http://127.0.0.1:9/mcp"}}},
                "extensions": {"hooks": {"agentEnd": [{"argv": ["echo", "done"]}]}},
            }
        )
    )
    monkeypatch.setenv("IPUARO_COMMANDS__TIMEOUT", "12")
    overrides = {"llm.model": "flag-model", "edit.auto_apply": True, "llm.provider": None}

    expected = load_config(project, overrides)
    first = load_config_cached(project, overrides)
    assert len(_entries(data)) == 1
    second = load_config_cached(project, overrides)  # from the cache file

    for served in (first, second):
        assert served == expected
        assert served.model_dump() == expected.model_dump()
        assert served.notices == expected.notices and expected.notices
        assert served.model_fields_set == expected.model_fields_set
        assert served.llm.model_fields_set == expected.llm.model_fields_set
        assert isinstance(served.store.path, Path)
        assert served.store.path == user / "stores" / "x.db"
        assert served.extensions.project_hooks == expected.extensions.project_hooks
        assert served.mcp.servers["git"].user_variables == frozenset({"GIT_TOKEN"})
        assert served.mcp.servers["docs"].declared_in == "project"
    assert second.commands.timeout == 12.0 and isinstance(second.commands.timeout, float)


def test_a_served_config_still_validates_what_is_assigned_to_it(
    dirs: tuple[Path, Path, Path],
) -> None:
    project, _, _ = dirs
    load_config_cached(project)
    served = load_config_cached(project)
    with pytest.raises(ValidationError):
        served.llm.temperature = 7.0
    served.llm.model = "other"
    assert served.llm.model == "other"


def test_an_edit_that_keeps_the_size_and_the_time_is_still_seen(
    dirs: tuple[Path, Path, Path],
) -> None:
    """Keyed by content: a same-size rewrite in the same clock tick is a new config."""
    project, _, _ = dirs
    settings = project / ".ipuaro.json"
    settings.write_text('{"watchdog": {"debounceMs": 111}}')
    assert load_config_cached(project).watchdog.debounce_ms == 111
    before = settings.stat()
    settings.write_text('{"watchdog": {"debounceMs": 222}}')
    os.utime(settings, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert settings.stat().st_size == before.st_size
    assert load_config_cached(project).watchdog.debounce_ms == 222


def test_every_input_is_part_of_the_key(
    dirs: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, user, _ = dirs
    assert load_config_cached(project).llm.model == "qwen2.5-coder:7b-instruct"
    (user / "config.json").write_text('{"llm": {"model": "user"}}')
    assert load_config_cached(project).llm.model == "user"
    monkeypatch.setenv("IPUARO_LLM__MODEL", "env")
    assert load_config_cached(project).llm.model == "env"
    assert load_config_cached(project, {"llm.model": "flag"}).llm.model == "flag"
    monkeypatch.delenv("IPUARO_LLM__MODEL")
    (user / "config.json").unlink()
    assert load_config_cached(project).llm.model == "qwen2.5-coder:7b-instruct"
    other = project / "sub"
    other.mkdir()
    (other / ".ipuaro.json").write_text('{"watchdog": {"debounceMs": 3}}')
    assert load_config_cached(other).watchdog.debounce_ms == 3
    assert load_config_cached(project).watchdog.debounce_ms == 500


def test_a_config_that_breaks_after_a_good_one_fails_as_without_the_cache(
    dirs: tuple[Path, Path, Path],
) -> None:
    project, _, data = dirs
    settings = project / ".ipuaro.json"
    settings.write_text('{"watchdog": {"debounceMs": 5}}')
    assert load_config_cached(project).watchdog.debounce_ms == 5
    settings.write_text('{"watchdog": {"debounceMs": -1}}')
    with pytest.raises(ConfigError) as cached_error:
        load_config_cached(project)
    with pytest.raises(ConfigError) as plain_error:
        load_config(project)
    assert str(cached_error.value) == str(plain_error.value)
    assert "watchdog.debounceMs" in str(cached_error.value)
    assert len(_entries(data)) == 1  # the failure stored nothing


def test_a_damaged_or_foreign_cache_file_is_ignored_and_replaced(
    dirs: tuple[Path, Path, Path],
) -> None:
    project, _, data = dirs
    (project / ".ipuaro.json").write_text('{"watchdog": {"debounceMs": 4}}')
    load_config_cached(project)
    [entry] = _entries(data)
    for damage in ("{not json", json.dumps({"fields": {"nope": 1}, "set": [], "private": {}})):
        entry.write_text(damage)
        assert load_config_cached(project).watchdog.debounce_ms == 4
        stored = json.loads(entry.read_text())
        assert stored["fields"]["watchdog"]["fields"]["debounce_ms"] == 4


def test_an_unwritable_data_dir_only_costs_the_cache(
    dirs: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project, _, _ = dirs
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("IPUARO_DATA_DIR", str(blocker))  # data dir "inside" a file
    assert load_config_cached(project) == load_config(project)


def test_the_cache_file_is_private_and_the_folder_stays_small(
    dirs: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, _, data = dirs
    monkeypatch.setattr(cache, "KEEP_ENTRIES", 3)
    for model in range(5):
        load_config_cached(project, {"llm.model": f"m{model}"})
    entries = _entries(data)
    assert len(entries) == 3
    assert all(stat.S_IMODE(entry.stat().st_mode) == 0o600 for entry in entries)


def test_a_config_file_flag_and_unusual_flag_values_bypass_the_cache(
    dirs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    project, _, data = dirs
    extra = tmp_path / "extra.json"
    extra.write_text('{"llm": {"model": "from-file"}}')
    assert load_config_cached(project, config_file=extra).llm.model == "from-file"
    assert load_config_cached(project, {"store.path": tmp_path / "s.db"}).store.path == (
        tmp_path / "s.db"
    )
    assert _entries(data) == []


def test_the_file_names_match_the_loader() -> None:
    assert cache._PROJECT_FILE == loader.PROJECT_FILE
    assert cache._USER_FILE == loader.USER_FILE


def test_an_edited_config_source_is_a_new_key(
    dirs: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editable checkout changes the schema in place: every module of the config package
    is part of the key (a copy of the package stands in for the checkout)."""
    project, _, _ = dirs
    package = tmp_path / "package"
    package.mkdir()
    for source in Path(cache.__file__).parent.glob("*.py"):
        (package / source.name).write_bytes(source.read_bytes())
    monkeypatch.setattr(cache, "__file__", str(package / "cache.py"))
    files = {project / ".ipuaro.json": None}
    before = cache._key(project, None, os.environ, files)
    (package / "schema.py").write_text((package / "schema.py").read_text() + "\n# edited\n")
    after_edit = cache._key(project, None, os.environ, files)
    (package / "new_module.py").write_text("")
    after_new = cache._key(project, None, os.environ, files)
    assert len({before, after_edit, after_new}) == 3


def test_a_start_served_from_the_cache_builds_no_validator(
    dirs: tuple[Path, Path, Path],
) -> None:
    """The point of the cache: the schema's validators are not built (pydantic's first
    validation is the cost being saved). A real process, so nothing is built beforehand."""
    project, _, _ = dirs
    child = (
        "import sys; from pathlib import Path\n"
        "from ipuaro.config.cache import load_config_cached\n"
        "from ipuaro.config import schema\n"
        "config = load_config_cached(Path(sys.argv[1]))\n"
        "print(config.llm.model, schema.Config.__pydantic_complete__)\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", child, str(project)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs == [["qwen2.5-coder:7b-instruct", "True"], ["qwen2.5-coder:7b-instruct", "False"]]


def test_every_key_has_its_documentation() -> None:
    """Field docstrings are the configuration's documentation; read on demand (pydantic no
    longer reads them at every start), every key of every section still has one."""
    sections = [
        value
        for value in vars(schema).values()
        if inspect.isclass(value) and issubclass(value, schema.Section)
    ]
    assert len(sections) > 20
    for section in sections:
        if section in (schema.Section, schema.Config):
            continue
        docs = field_docs(section)
        missing = [name for name in section.model_fields if not docs.get(name)]
        assert not missing, f"{section.__name__}: no docstring for {missing}"
    assert field_docs(schema.LlmConfig)["context_window"].startswith("Context window")


def test_a_file_changed_while_it_loads_is_stored_under_what_was_validated(
    dirs: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache looks at the file, then the loader reads it again: an edit in between must
    not leave the new settings filed under the old contents (served the next time the old
    contents are back)."""
    project, _, _ = dirs
    settings = project / ".ipuaro.json"
    old, new = '{"watchdog": {"debounceMs": 100}}', '{"watchdog": {"debounceMs": 900}}'
    settings.write_text(old)
    looked_at = cache._contents

    def edited_right_after(path: Path) -> bytes | None:
        seen = looked_at(path)
        if path == settings:
            settings.write_text(new)  # the user saves while ipuaro starts
        return seen

    monkeypatch.setattr(cache, "_contents", edited_right_after)
    assert load_config_cached(project).watchdog.debounce_ms == 900  # what the loader read
    monkeypatch.setattr(cache, "_contents", looked_at)
    settings.write_text(old)
    assert load_config_cached(project).watchdog.debounce_ms == 100
    settings.write_text(new)
    assert load_config_cached(project).watchdog.debounce_ms == 900


def test_the_loader_reports_the_bytes_it_validated(dirs: tuple[Path, Path, Path]) -> None:
    project, user, _ = dirs
    (project / ".ipuaro.json").write_text('{"watchdog": {"debounceMs": 7}}')
    read: dict[Path, bytes | None] = {}
    load_config(project, read=read)
    assert read == {
        user / "config.json": None,
        project / ".ipuaro.json": b'{"watchdog": {"debounceMs": 7}}',
    }


def test_a_home_relative_store_path_follows_home(
    dirs: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``store.path: "~/…"`` is expanded by the loader with HOME: another HOME (another user
    under ``sudo -E``, a container) is another configuration, not the first one's store."""
    project, user, _ = dirs
    (user / "config.json").write_text(json.dumps({"store": {"path": "~/stores/x.db"}}))
    monkeypatch.setenv("HOME", str(tmp_path / "alice"))
    first = load_config_cached(project)
    monkeypatch.setenv("HOME", str(tmp_path / "bob"))

    second = load_config_cached(project)

    assert first.store.path == tmp_path / "alice" / "stores" / "x.db"
    assert second.store.path == load_config(project).store.path
    assert second.store.path == tmp_path / "bob" / "stores" / "x.db"
