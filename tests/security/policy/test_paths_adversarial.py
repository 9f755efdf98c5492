"""Adversarial paths against a real project in tmp_path with real symlinks (see conftest.py).

Each refused case asserts the reason; each allowed case asserts the resolved project-relative
path, so a policy that accepted everything or resolved wrongly would fail.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ipuaro.config.schema import Config, ProjectConfig
from ipuaro.security.policy.paths import ALWAYS_PROTECTED, PathPolicy, PathRefused

DOTDOT = "'..' is not allowed"
ENCODED = "URL encoding"
LOOKALIKE = "look-alike characters"
SYMLINK_OUT = "a symlink makes it point outside the project"

REFUSED: list[tuple[str, str]] = [
    ("", "it is empty"),
    ("   ", "it is empty"),
    ("src/a\x00.py", "NUL byte"),
    ("src/a.py\x00", "NUL byte"),
    ("..", DOTDOT),
    ("../x", DOTDOT),
    ("../../etc/passwd", DOTDOT),
    ("src/../../x", DOTDOT),
    ("./a/../../b", DOTDOT),
    ("src/..", DOTDOT),
    ("src/pkg/../../../x", DOTDOT),
    ("a/b/c/../../../../x", DOTDOT),
    ("~", "home directory"),
    ("~/x", "home directory"),
    ("~root/.ssh/id_rsa", "known secret location"),
    ("/etc/shadow", "known secret location"),
    ("~/.aws/credentials", "known secret location"),
    ("/etc/passwd", "outside the project root"),
    ("/", "outside the project root"),
    ("/tmp", "outside the project root"),
    ("C:\\Windows\\system32", "Windows drive"),
    ("c:/x", "Windows drive"),
    ("C:", "Windows drive"),
    ("\\\\server\\share\\x", "UNC"),
    ("//server/share", "UNC"),
    ("src\\..\\..\\x", "backslashes"),
    ("..\\x", "backslashes"),
    ("src\\a.py", "backslashes"),
    ("%2e%2e/x", ENCODED),
    ("%2E%2E/x", ENCODED),
    ("src/%2e%2e/%2e%2e/x", ENCODED),
    ("..%2fx", ENCODED),
    ("%2e%2e%2fx", ENCODED),
    ("%252e%252e/x", ENCODED),
    ("%2fetc/passwd", ENCODED),
    ("%5c..%5cx", ENCODED),
    ("／etc／passwd", LOOKALIKE),
    ("src／a.py", LOOKALIKE),
    ("．．/x", LOOKALIKE),
    ("‥/x", LOOKALIKE),
    ("src∕..∕x", LOOKALIKE),
    ("a⁄b", LOOKALIKE),
    ("～/x", LOOKALIKE),
    ("src/a\u200b.py", "invisible character U+200B"),
    ("src/\u202ecod.py", "invisible character U+202E"),
    ("src/a\n.py", "control character"),
    ("src/a\x1b.py", "control character"),
    (" src/a.py", "leading or trailing whitespace"),
    ("src/a.py ", "leading or trailing whitespace"),
    ("x" * 5000, "longer than 4096"),
]

SYMLINK_REFUSED: list[tuple[str, str]] = [
    ("out_link", SYMLINK_OUT),
    ("out_link/victim.txt", SYMLINK_OUT),
    ("out_link/new.txt", SYMLINK_OUT),
    ("victim_link.txt", SYMLINK_OUT),
    ("dangling_out.txt", SYMLINK_OUT),
    ("loop_a", "cannot be resolved"),
]

ALLOWED: list[tuple[str, str]] = [
    ("src/a.py", "src/a.py"),
    ("./src/a.py", "src/a.py"),
    ("src/./a.py", "src/a.py"),
    ("src//a.py", "src/a.py"),
    ("src/", "src"),
    ("src", "src"),
    ("src/pkg/b.py", "src/pkg/b.py"),
    ("./src/pkg/./b.py", "src/pkg/b.py"),
    ("README.md", "README.md"),
    (".", "."),
    ("./", "."),
    ("new.txt", "new.txt"),
    ("new/dir/file.txt", "new/dir/file.txt"),
    ("src_link/a.py", "src/a.py"),
    ("src_link/pkg/b.py", "src/pkg/b.py"),
    ("src_link", "src"),
    ("a_link.py", "src/a.py"),
    ("git_link/config", ".git/config"),
    (".env", ".env"),
    (".env.example", ".env.example"),
    (".git/config", ".git/config"),
    ("secrets/token.txt", "secrets/token.txt"),
    ("config/server.pem", "config/server.pem"),
    ("a%20b.txt", "a%20b.txt"),
    ("100%.txt", "100%.txt"),
    ("...", "..."),
    ("..hidden", "..hidden"),
    ("file..txt", "file..txt"),
    ("tilde~.txt", "tilde~.txt"),
    ("文档/说明.md", "文档/说明.md"),
    ("ｓｒｃ/fullwidth-letters.txt", "ｓｒｃ/fullwidth-letters.txt"),
    ("café.py", "café.py"),
    ("src/-dash.py", "src/-dash.py"),
    ("src/with space.py", "src/with space.py"),
]

PROTECTED: list[tuple[str, str]] = [
    (".env", "'.env' is a protected path"),
    (".env.local", "'.env.local' is a protected path"),
    (".env.production", "'.env.production' is a protected path"),
    ("config/.env", "'config/.env' is a protected path"),
    (".ENV", "'.ENV' is a protected path"),
    ("config/server.pem", "'config/server.pem' is a protected path"),
    ("deploy/tls.key", "'deploy/tls.key' is a protected path"),
    ("certs/client.p12", "'certs/client.p12' is a protected path"),
    ("id_rsa", "'id_rsa' is a protected path"),
    ("keys/id_rsa.pub", "'keys/id_rsa.pub' is a protected path"),
    ("secrets/token.txt", "'secrets/token.txt' is a protected path"),
    ("app/secrets/db.txt", "'app/secrets/db.txt' is a protected path"),
    ("secrets", "'secrets' is a protected path"),
    (".git/config", "'.git/config' is a protected path"),
    (".git", "'.git' is a protected path"),
    (".git/hooks/pre-commit", "'.git/hooks/pre-commit' is a protected path"),
    ("git_link/config", "'.git/config' is a protected path"),
    ("env_link", "'.env' is a protected path"),
    (".ipuaro.json", "'.ipuaro.json' is a protected path"),
    (".", "the project root itself"),
]


@pytest.mark.parametrize(("path", "reason"), REFUSED + SYMLINK_REFUSED)
def test_refused(path_policy: PathPolicy, path: str, reason: str) -> None:
    with pytest.raises(PathRefused) as refused:
        path_policy.resolve(path)
    assert reason in refused.value.reason
    assert refused.value.reason.startswith("path ")


@pytest.mark.parametrize(("path", "reason"), REFUSED + SYMLINK_REFUSED)
def test_refused_for_writing_too(path_policy: PathPolicy, path: str, reason: str) -> None:
    with pytest.raises(PathRefused) as refused:
        path_policy.check_writable(path)
    assert reason in refused.value.reason


@pytest.mark.parametrize(("path", "rel"), ALLOWED)
def test_allowed(path_policy: PathPolicy, project: Path, path: str, rel: str) -> None:
    resolved = path_policy.resolve(path)
    assert resolved.rel == rel
    assert resolved.abs == (project / rel).resolve()
    assert resolved.abs.is_relative_to(project.resolve())


@pytest.mark.parametrize(("path", "reason"), PROTECTED)
def test_protected_paths_cannot_be_written(path_policy: PathPolicy, path: str, reason: str) -> None:
    path_policy.resolve(path)  # readable: it is inside the project
    with pytest.raises(PathRefused) as refused:
        path_policy.check_writable(path)
    assert reason in refused.value.reason


def test_absolute_paths_inside_the_root_are_accepted(
    path_policy: PathPolicy, project: Path
) -> None:
    assert path_policy.resolve(str(project / "src" / "a.py")).rel == "src/a.py"
    with pytest.raises(PathRefused, match="protected"):
        path_policy.check_writable(str(project / ".env"))


def test_absolute_path_through_the_root_parent_is_refused(
    path_policy: PathPolicy, project: Path, outside: Path
) -> None:
    with pytest.raises(PathRefused, match="outside the project root"):
        path_policy.resolve(str(outside / "victim.txt"))
    with pytest.raises(PathRefused, match=DOTDOT):
        path_policy.resolve(f"{project}/../outside/victim.txt")


def test_absolute_path_through_a_symlink_to_the_root_is_the_same_file(
    path_policy: PathPolicy, project: Path, tmp_path: Path, outside: Path
) -> None:
    alias = tmp_path / "alias"  # the user opened the project via a symlinked folder
    os.symlink(project, alias)
    resolved = path_policy.resolve(str(alias / "src" / "a.py"))
    assert (resolved.rel, resolved.abs) == ("src/a.py", project / "src" / "a.py")
    with pytest.raises(PathRefused, match="protected"):  # the rules apply to the real path
        path_policy.check_writable(str(alias / ".env"))
    with pytest.raises(PathRefused, match=SYMLINK_OUT):
        path_policy.resolve(str(alias / "out_link" / "victim.txt"))
    os.symlink(outside, tmp_path / "elsewhere")  # a link to some other folder stays outside
    with pytest.raises(PathRefused, match="outside the project root"):
        path_policy.resolve(str(tmp_path / "elsewhere" / "victim.txt"))


def test_symlink_created_after_policy_is_still_caught(
    path_policy: PathPolicy, project: Path, outside: Path
) -> None:
    os.symlink(outside, project / "src" / "late_link")
    with pytest.raises(PathRefused, match=SYMLINK_OUT):
        path_policy.check_writable("src/late_link/victim.txt")


def test_secret_files(path_policy: PathPolicy) -> None:
    secrets = [".env", ".env.local", "a/.env", "x.pem", "k.key", "c.p12", "c.pfx", "id_rsa"]
    secrets += ["id_ed25519", "secrets/a.txt", "deep/secrets/b", ".netrc", ".npmrc", ".ENV"]
    plain = [".env.example", "id_rsa.pub", "src/a.py", "README.md", "secrets.md", "keys.txt"]
    assert [s for s in secrets if not path_policy.is_secret(s)] == []
    assert [p for p in plain if path_policy.is_secret(p)] == []


def test_configured_patterns_with_negation(project: Path) -> None:
    policy = PathPolicy(project, ["*.lock", "!keep.lock", "build/"])
    assert policy.is_protected("a.lock")
    assert not policy.is_protected("keep.lock")
    assert policy.is_protected("build")
    assert policy.is_protected("build/out.js")
    assert not policy.is_protected(".env")  # not configured here (secrets are separate)
    assert policy.is_secret(".env")
    assert policy.is_protected(".ipuaro.json")  # always: it decides policy


def test_defaults_match_config(project: Path) -> None:
    from_config = PathPolicy.from_config(project, Config())
    assert (
        from_config.protected_patterns[: -len(ALWAYS_PROTECTED)] == ProjectConfig().protected_paths
    )


def test_check_deletable_refuses_folders_holding_protected_files(
    path_policy: PathPolicy, project: Path
) -> None:
    (project / "app").mkdir()
    (project / "app" / "main.py").write_text("x\n")
    (project / "app" / ".env").write_text("SECRET=1\n")
    with pytest.raises(PathRefused, match=r"contains the protected path 'app/\.env'"):
        path_policy.check_deletable("app")
    assert path_policy.check_deletable("src").rel == "src"


def test_missing_root_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        PathPolicy(tmp_path / "nope", [])


def test_non_string_path_is_refused(path_policy: PathPolicy) -> None:
    with pytest.raises(PathRefused, match="expected a string"):
        path_policy.resolve(Path("src/a.py"))  # type: ignore[arg-type]


def test_case_counts() -> None:
    assert len(REFUSED) + len(SYMLINK_REFUSED) >= 30
    assert len(ALLOWED) >= 30
