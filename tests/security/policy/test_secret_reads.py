"""Reads the command words do not spell out: paths known only at run time, folders walked
recursively, /proc environments and credential variables. In a project holding secrets they ask,
with a reason naming the secret; in a project without secrets the same commands run."""

from __future__ import annotations

from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.security.policy import secret_scan
from ipuaro.security.policy.commands import CommandPolicy
from ipuaro.security.policy.paths import PathPolicy
from ipuaro.security.process.runner import environment_without, secret_environment_names

DYNAMIC = "a path known only at run time, and the project has secret files"

SECRET_READS: list[tuple[str, str]] = [
    ("cat $(echo .env)", DYNAMIC),
    ("cat `echo .env`", DYNAMIC),
    ("f=.env; cat $f", DYNAMIC),
    ('cat "$f"', DYNAMIC),
    ("head -n 5 < $f", DYNAMIC),
    ("cat $PWD/.env", "`$PWD/.env`, which names a secret file"),
    ('cat "$HOME/.ssh/id_rsa"', "which names a secret file"),
    ("echo .env | xargs cat", "`<stdin words>`, a path known only at run time"),
    ("find . -name '*.txt' | xargs grep KEY", "a path known only at run time"),
    ("grep -r hunter2 .", "`grep -r` reads every file under `.`, including the secret file"),
    ("grep -r SECRET .", "including the secret file"),
    ("grep -rn x", "`grep -r` reads every file under `.`"),
    ("grep -R --include='*.txt' x .", "`grep -r` reads every file under `.`"),
    ("grep --recursive -e x -- sub", "under `sub`, including the secret file `sub/secrets`"),
    ("egrep -ril token", "including the secret file"),
    ("rg hunter2", "`rg` (searches folders recursively) reads every file under `.`"),
    ("rg -uuu --hidden KEY .", "searches folders recursively"),
    ("ag KEY", "searches folders recursively"),
    ("cp -r . build/copy", "`cp -r` reads every file under `.`"),
    ("cp -a sub backup", "`cp -r` reads every file under `sub`"),
    ("tar czf out.tgz .", "`tar` (archives folders recursively) reads every file under `.`"),
    ("tar -cf out.tar sub", "under `sub`"),
    ("zip -r out.zip .", "`zip -r` reads every file under `.`"),
    ("find . -exec cat {} +", "`find -exec cat` reads every file under `.`"),
    ("find sub -type f -exec head -n 1 {} ;", "under `sub`, including the secret file"),
    ("grep -r x $DIR", DYNAMIC),
    ("cat /proc/self/environ", "reads the secret file `/proc/self/environ`"),
    ("cat /proc/1/environ", "reads the secret file `/proc/1/environ`"),
    ("tr '\\0' '\\n' < /proc/self/environ", "`/proc/self/environ`"),
    ("cat /proc/self/cmdline", "reads the secret file `/proc/self/cmdline`"),
    ("cat /proc/$PPID/environ", "`/proc/$PPID/environ`, which names a secret file"),
    ("cat /proc/*/environ", "`/proc/*/environ`"),
    ("echo $OPENAI_API_KEY", "expands `$OPENAI_API_KEY`, which may hold a secret"),
    ('echo "${ANTHROPIC_API_KEY}"', "expands `$ANTHROPIC_API_KEY`"),
    ("printf %s $GITHUB_TOKEN", "expands `$GITHUB_TOKEN`"),
    ("k=$AWS_SECRET; echo $k", "expands `$AWS_SECRET`"),
    ("echo $DB_PASSWORD > out.txt", "expands `$DB_PASSWORD`"),
]

# Reads the policy must not ask about: nothing secret is in reach.
PLAIN_READS: list[str] = [
    "grep -rn TODO src",
    "grep -r x src/a.py",
    "rg foo src",
    "cp -r src src2",
    "tar czf out.tgz src",
    "find src -name '*.py' -exec grep -l foo {} +",
    "find . -name '*.py' -print",
    "rg --files",
    "grep x .env.example",
    "echo $PATH",
    "echo $HOME $MONKEY",
    "ls $DIR",
    "wc -l $(git ls-files)",
    'git commit -m "$(date)"',
    "tar xzf in.tgz",
]


@pytest.fixture
def secret_project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("print('a')  # TODO\n")
    (root / "sub" / "secrets").mkdir(parents=True)
    (root / "sub" / "secrets" / "k.txt").write_text("TOPSECRET\n")
    (root / ".env").write_text("DB_PASSWORD=hunter2\n")
    (root / ".env.example").write_text("DB_PASSWORD=\n")
    return root


@pytest.fixture
def clean_project(tmp_path: Path) -> Path:
    root = tmp_path / "clean"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("print('a')\n")
    (root / ".env.example").write_text("DB_PASSWORD=\n")
    # Package folders hold key-looking fixtures that are not the project's secrets.
    certs = root / ".venv" / "lib" / "site-packages" / "certifi"
    certs.mkdir(parents=True)
    (certs / "cacert.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    (root / "node_modules" / "lib" / "test").mkdir(parents=True)
    (root / "node_modules" / "lib" / "test" / "server.key").write_text("key\n")
    return root


def policy_for(root: Path) -> CommandPolicy:
    config = Config()
    config.whitelist.user = ["cp", "tar", "zip"]  # so only the secret question can ask
    return CommandPolicy.from_config(root, config)


@pytest.mark.parametrize(("command", "reason"), SECRET_READS)
def test_secret_reads_ask(secret_project: Path, command: str, reason: str) -> None:
    decision = policy_for(secret_project).decide(command)
    assert decision.verdict == "ask", decision.reason
    assert reason in decision.reason
    assert decision.secret, decision.reason  # only a person may allow it (not --allow-commands)


@pytest.mark.parametrize("command", PLAIN_READS)
def test_plain_reads_allowed_in_a_project_with_secrets(secret_project: Path, command: str) -> None:
    decision = policy_for(secret_project).decide(command)
    assert decision.verdict == "allow", decision.reason


@pytest.mark.parametrize(
    "command",
    [
        "cat $(echo a.py)",
        "f=src/a.py; cat $f",
        "echo src/a.py | xargs cat",
        "grep -r x .",
        "rg foo",
        "find . -exec cat {} +",
        'find . -name "*.ts" | xargs grep -l "foo"',
        "find . -name '*.py' -exec grep -l foo {} +",
        "rg -n \"foo\" --glob '*.py'",
    ],
)
def test_run_time_reads_allowed_without_secrets(clean_project: Path, command: str) -> None:
    decision = policy_for(clean_project).decide(command)
    assert decision.verdict == "allow", decision.reason


def test_naming_a_package_folder_checks_it(clean_project: Path) -> None:
    decision = policy_for(clean_project).decide("grep -r x node_modules")
    assert decision.verdict == "ask"
    assert "node_modules/lib/test/server.key" in decision.reason


def test_a_secret_created_later_is_noticed(
    clean_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = policy_for(clean_project)
    assert policy.decide("cat $f").verdict == "allow"
    (clean_project / ".env").write_text("K=v\n")
    assert policy.decide("cat $f").verdict == "allow"  # within the cache window
    monkeypatch.setattr(secret_scan, "CACHE_S", 0.0)
    decision = policy.decide("cat $f")
    assert decision.verdict == "ask" and "`.env`" in decision.reason


def test_symlink_to_a_secret_counts(clean_project: Path) -> None:
    (clean_project / "hidden").mkdir()
    (clean_project / "keys.pem").write_text("k\n")
    (clean_project / "hidden" / "notes.txt").symlink_to(clean_project / "keys.pem")
    decision = policy_for(clean_project).decide("grep -r x hidden")
    assert decision.verdict == "ask" and "hidden/notes.txt" in decision.reason


def test_too_large_to_check_asks(clean_project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secret_scan, "MAX_ENTRIES", 2)
    decision = policy_for(clean_project).decide("cat $f")
    assert decision.verdict == "ask" and "too large to check" in decision.reason


def test_secret_files_lists_secrets_under_a_folder(secret_project: Path) -> None:
    paths = PathPolicy.from_config(secret_project, Config())
    assert paths.secret_files(".") == [".env", "sub/secrets"]
    assert paths.secret_files("sub") == ["sub/secrets"]
    assert paths.secret_files("src") == []


def test_decide_reuses_the_cached_scan(
    secret_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fifty decisions walk the project once, not fifty times (their speed is measured in
    bench/hot_paths_bench.py)."""
    from ipuaro.security.policy.secret_scan import SecretScan

    walks: list[Path] = []
    walk = SecretScan._walk

    def counted(self: SecretScan, start: Path, *, skip: bool) -> tuple[list[str], bool]:
        walks.append(start)
        return walk(self, start, skip=skip)

    monkeypatch.setattr(SecretScan, "_walk", counted)
    policy = policy_for(secret_project)
    policy.decide("cat $f")  # fills the cache
    assert walks == [secret_project]
    for _ in range(50):
        assert policy.decide("grep -r x . && cat $f").verdict == "ask"
    assert walks == [secret_project]


def test_secret_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    base = {
        "PATH": "/bin",
        "OPENAI_API_KEY": "sk-1",
        "MY_LLM_KEY": "x",
        "GITHUB_TOKEN": "t",
        "npm_token": "n",
        "AWS_SECRET": "s",
        "HOME": "/h",
        "TOKENIZER": "keep",
    }
    names = secret_environment_names(["MY_LLM_KEY"], base)
    assert names == sorted(["AWS_SECRET", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "MY_LLM_KEY",
                            "OPENAI_API_KEY", "npm_token"])  # fmt: skip
    left = environment_without(names, base)
    assert left == {"PATH": "/bin", "HOME": "/h", "TOKENIZER": "keep"}
