"""The Landlock sandbox with real processes: what a confined command can read and write, the
network, the private temp folder, and the same rules for a user without any privilege."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ipuaro.config.schema import SandboxConfig
from ipuaro.security.process.runner import run_shell
from ipuaro.security.sandboxing import landlock
from ipuaro.security.sandboxing.sandbox import (
    SandboxProfile,
    engine,
    is_secret_location,
    sandboxed_argv,
    status_label,
)

pytestmark = pytest.mark.skipif(engine() is None, reason="this kernel has no Landlock")

SECRETS = {
    ".ssh/id_rsa": "SSH-KEY-CANARY",
    ".aws/credentials": "AWS-CANARY",
    ".config/gh/hosts.yml": "GH-TOKEN-CANARY",
    ".netrc": "NETRC-CANARY",
    ".docker/config.json": "DOCKER-CANARY",
    ".gnupg/private.key": "GPG-CANARY",
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for rel, text in SECRETS.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    (home / ".gitconfig").write_text("[user]\n\tname = x\n")
    (home / ".config" / "tool.toml").write_text("setting = 1\n")
    (home / ".docker" / "features.json").write_text("{}\n")
    (home / "Documents").mkdir()
    (home / "Documents" / "diary.txt").write_text("DIARY-CANARY")
    return home


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("inside\n")
    return root


def profile(root: Path, home: Path, **config: object) -> SandboxProfile:
    return SandboxProfile.for_project(
        root, SandboxConfig.model_validate(config), env={"HOME": str(home)}
    )


def run(sandbox: SandboxProfile, command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = sandbox.environment({"PATH": os.environ["PATH"], "HOME": str(sandbox.home)})
    return subprocess.run(
        sandbox.wrap(["/bin/sh", "-c", command]),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_home_secrets_cannot_be_read_but_tool_settings_can(root: Path, home: Path) -> None:
    sandbox = profile(root, home)
    for rel, text in SECRETS.items():
        done = run(sandbox, f"cat '{home / rel}'", root)
        assert done.returncode != 0 and text not in done.stdout, rel
        assert "Permission denied" in done.stderr
    readable = run(sandbox, f"cat '{home}/.gitconfig' '{home}/.config/tool.toml'", root)
    assert readable.returncode == 0 and "setting = 1" in readable.stdout
    assert run(sandbox, f"cat '{home}/.docker/features.json'", root).returncode == 0
    diary = run(sandbox, f"cat '{home}/Documents/diary.txt'", root)
    assert "DIARY-CANARY" not in diary.stdout  # the home's own folders are private too


def test_writes_only_inside_the_project_and_the_private_temp(
    root: Path, home: Path, tmp_path: Path
) -> None:
    sandbox = profile(root, home)
    neighbour = tmp_path / "neighbour.txt"
    neighbour.write_text("keep\n")
    done = run(
        sandbox,
        f"echo new > b.txt; mkdir -p build/x && echo o > build/x/o; "
        f'echo t > "$TMPDIR/t" && cat "$TMPDIR/t"; echo gone > {neighbour}; '
        f"rm -f {neighbour}; touch {home}/.bashrc; echo x > /dev/null",
        root,
    )
    assert (root / "b.txt").read_text() == "new\n" and (root / "build/x/o").exists()
    assert done.stdout.strip() == "t"
    assert neighbour.read_text() == "keep\n"
    assert not (home / ".bashrc").exists()
    assert sandbox.temp is not None and (sandbox.temp / "t").exists()


def test_read_only_profile_cannot_write_the_project(root: Path, home: Path) -> None:
    sandbox = profile(root, home, profile="read-only")
    done = run(sandbox, "cat a.txt; echo x > a.txt; echo t > $TMPDIR/t && echo tmp-ok", root)
    assert "inside" in done.stdout and "tmp-ok" in done.stdout
    assert (root / "a.txt").read_text() == "inside\n"


def test_other_places_cannot_be_read(root: Path, home: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("OUTSIDE-CANARY")
    sandbox = profile(root, home)
    done = run(
        sandbox, f"cat {tmp_path}/outside/secret.txt /etc/shadow; head -c1 /etc/passwd", root
    )
    assert "OUTSIDE-CANARY" not in done.stdout and done.stdout  # system files stay readable
    assert "secret.txt: Permission denied" in done.stderr
    assert "shadow: Permission denied" in done.stderr  # refused, not missing


def test_network_is_off_unless_allowed(root: Path, home: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    connect = f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo ok'"
    try:
        offline = profile(root, home)
        done = run(offline, connect, root)
        assert "ok" not in done.stdout and "Permission denied" in done.stderr
        online = offline.with_network(True)
        assert run(online, connect, root).stdout.strip() == "ok"
        assert online.temp == offline.temp  # one private temp folder for the session
    finally:
        server.close()


def test_a_git_worktree_can_commit_into_its_main_repository(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    main = tmp_path / "main"
    main.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=main, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "a"], cwd=main, check=True)
    subprocess.run([*git, "worktree", "add", "-q", str(tmp_path / "wt")], cwd=main, check=True)
    sandbox = profile(tmp_path / "wt", home)
    done = run(
        sandbox,
        "echo x > f && git add f && git -c user.name=t -c user.email=t@e commit -qm f && echo ok",
        tmp_path / "wt",
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_inactive_profiles_leave_the_command_alone(root: Path, home: Path) -> None:
    off = profile(root, home, profile="off")
    assert sandboxed_argv(off, ["ls"]) == ["ls"] and not off.active
    assert off.environment({"A": "1"}) == {"A": "1"}
    assert status_label("off") == "⚠ sandbox off"
    assert status_label("workspace") == "sandbox: workspace"
    with pytest.raises(ValueError, match="needs a command"):
        sandboxed_argv(profile(root, home), [])


def test_secret_locations_are_named_the_same_for_commands_and_tools(home: Path) -> None:
    assert is_secret_location(home / ".ssh" / "id_rsa", home)
    assert is_secret_location(home / ".config" / "gh", home)
    assert is_secret_location(Path("/etc/shadow"), home)
    assert is_secret_location(Path("/home/someone-else/notes"), home)
    assert not is_secret_location(home / ".gitconfig", home)
    assert not is_secret_location(Path("/etc/passwd"), home)
    assert not is_secret_location(Path("/home/linuxbrew/.linuxbrew/bin/node"), home)


def test_the_launcher_refuses_to_run_unconfined(root: Path) -> None:
    launcher = [sys.executable, "-I", "-S", str(Path(landlock.__file__))]
    for spec in (["yes"], ["0", "/"], ["0", "many", "/"]):
        bad = subprocess.run([*launcher, *spec, "--", "true"], capture_output=True, text=True)
        assert bad.returncode == landlock.LAUNCH_FAILED and "bad rules" in bad.stderr, spec
    usage = subprocess.run([*launcher, "0"], capture_output=True, text=True)
    assert usage.returncode == 2 and "usage" in usage.stderr
    spec = landlock.launcher_args([("/", landlock.READ)], network=False)
    missing = subprocess.run(
        [*launcher, *spec, "--", "no-such-program-x"], capture_output=True, text=True
    )
    assert missing.returncode == 127 and "cannot run" in missing.stderr


async def test_run_shell_confines_and_still_kills_on_timeout(root: Path, home: Path) -> None:
    sandbox = profile(root, home)
    outcome = await run_shell(f"cat {home}/.ssh/id_rsa; echo done", root, 10, sandbox=sandbox)
    assert "SSH-KEY-CANARY" not in outcome.output and "done" in outcome.output
    slow = await run_shell("sleep 30 & sleep 30", root, 0.5, sandbox=sandbox, kill_grace=0.1)
    assert slow.timed_out and slow.duration_s < 5


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or not Path("/usr/bin/python3").exists(),
    reason="needs root to switch to an unprivileged user with setpriv",
)
def test_an_unprivileged_user_is_confined_the_same_way() -> None:
    """The sandbox needs no privilege: run the launcher as `nobody` (uid 65534) and the
    canaries it may not touch stay; a parent's environment is out of reach too."""
    top = Path(tempfile.mkdtemp(prefix="ipuaro-unprivileged-"))  # pytest's tmp is root-only
    try:
        _unprivileged_run(top)
    finally:
        shutil.rmtree(top)


def _unprivileged_run(tmp_path: Path) -> None:
    base = Path(tmp_path / "u")
    (base / "home" / ".ssh").mkdir(parents=True)
    (base / "proj").mkdir()
    (base / "outside").mkdir()
    (base / "home" / ".ssh" / "id_rsa").write_text("SSH-KEY-CANARY")
    (base / "outside" / "keep.txt").write_text("keep")
    shutil.copy(landlock.__file__, base / "launcher.py")
    for path in [tmp_path, *base.rglob("*"), base]:
        os.chown(path, 65534, 65534)
    tmp_path.chmod(0o755)
    sandbox = SandboxProfile.for_project(base / "proj", env={"HOME": str(base / "home")})
    spec = landlock.launcher_args(sandbox.rules(), network=False)
    script = (
        f"id -u; cat {base}/home/.ssh/id_rsa; rm -rf {base}/outside; echo in > mine.txt; "
        "tr '\\0' '\\n' < /proc/$PPID/environ | grep PARENT_SECRET; echo end"
    )
    launch = ["/usr/bin/python3", "-I", "-S", str(base / "launcher.py"), *spec, "--"]
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         "env", "PARENT_SECRET=hunter2", "/bin/sh", "-c", '"$@"', "sh",
         *launch, "/bin/sh", "-c", script],
        cwd=base / "proj", capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.stdout.startswith("65534\n"), done.stderr
    assert "SSH-KEY-CANARY" not in done.stdout and "hunter2" not in done.stdout
    assert (base / "outside" / "keep.txt").read_text() == "keep"
    assert (base / "proj" / "mine.txt").read_text() == "in\n"
    assert "end" in done.stdout


def test_a_closed_pipe_ends_a_confined_command_quietly(root: Path, home: Path) -> None:
    """The launcher is Python, which ignores SIGPIPE; the command must not inherit that."""
    done = run(profile(root, home), "yes | head -1; seq 1 100000 | head -1", root)
    assert done.stdout == "y\n1\n" and done.stderr == ""


def test_programs_on_the_path_run_from_a_hidden_place(
    root: Path, home: Path, tmp_path: Path
) -> None:
    """A virtualenv or checkout under /tmp (CI's clone, a venv beside the project) is on PATH:
    its programs and their own files stay usable, while its neighbours stay hidden."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib").mkdir()
    (venv / "lib" / "data.txt").write_text("TOOL-DATA")
    tool = venv / "bin" / "hello"
    tool.write_text(f"#!/bin/sh\ncat {venv}/lib/data.txt\n")
    tool.chmod(0o755)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("OUTSIDE-CANARY")
    path = f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"
    sandbox = SandboxProfile.for_project(
        root, SandboxConfig(), env={"HOME": str(home), "PATH": path}
    )
    env = sandbox.environment({"PATH": path, "HOME": str(home)})
    done = subprocess.run(
        sandbox.wrap(["/bin/sh", "-c", f"hello; cat {tmp_path}/outside/secret.txt"]),
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert "TOOL-DATA" in done.stdout, done.stderr
    assert "OUTSIDE-CANARY" not in done.stdout
    assert "secret.txt: Permission denied" in done.stderr


def test_path_never_opens_a_whole_hidden_folder_or_another_home(tmp_path: Path) -> None:
    from ipuaro.security.sandboxing.sandbox import toolchain_folders

    home = tmp_path / "me"
    home.mkdir()
    folders = toolchain_folders({"PATH": f"/tmp:/home/somebody/bin:{home}:relative/bin"}, home)
    assert Path("/tmp") not in folders
    assert home.resolve() not in folders
    assert not any(str(f).startswith("/home/somebody") for f in folders)
    assert not any(not f.is_absolute() for f in folders)
