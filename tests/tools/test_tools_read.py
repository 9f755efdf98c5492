"""Read tools against the indexed fixture: get_lines, get_function, get_class, get_structure."""

from __future__ import annotations

from ipuaro.tools.base import ConfirmDecision, ConfirmRequest

from .conftest import Project


async def test_get_lines_numbers_lines_and_records_the_read(project: Project) -> None:
    result = await project.ok("get_lines", path="src/utils/math.ts", start=2, end=3)
    assert result.data.splitlines()[1:] == ["2|   return a + b;", "3| }"]
    assert "lines 2-3 of 20" in result.data
    seen = project.ctx.reads.get("src/utils/math.ts")
    assert seen is not None and seen.hash == project.store.get_file("src/utils/math.ts").hash


async def test_get_lines_reads_the_store_not_the_disk(project: Project) -> None:
    (project.root / "README.md").write_text("changed on disk, not yet indexed\n")
    result = await project.ok("get_lines", path="README.md")
    assert "# tools-app" in result.data and "changed on disk" not in result.data


async def test_get_lines_caps_at_500_and_says_how_to_continue(project: Project) -> None:
    (project.root / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 1201)))
    project.indexer.update_paths(["long.txt"], [])
    result = await project.ok("get_lines", path="long.txt")
    lines = result.data.splitlines()
    assert lines[1] == "  1| line 1" and lines[500] == "500| line 500"
    assert '"start": 501' in lines[-1] and '"end": 1000' in lines[-1]
    data = project.data(result)
    assert data["end"] == 500 and data["totalLines"] == 1200


async def test_get_lines_out_of_range_and_missing_path(project: Project) -> None:
    past = await project.call("get_lines", path="src/utils/math.ts", start=99)
    assert not past.success and "has 20 lines" in (past.error or "")
    missing = await project.call("get_lines", path="src/utils/maths.ts")
    assert not missing.success
    assert "Did you mean: src/utils/math.ts" in (missing.error or "")


async def test_get_lines_explains_a_skipped_non_utf8_file(project: Project) -> None:
    (project.root / "latin.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    project.indexer.update_paths(["latin.txt"], [])
    result = await project.call("get_lines", path="latin.txt")
    assert not result.success
    assert (
        result.error
        == "latin.txt is not UTF-8 text; ipuaro skips such files (convert it to UTF-8)."
    )


async def test_get_lines_of_an_impossible_path_is_an_error_not_a_crash(project: Project) -> None:
    name = "a" * 300 + ".ts"  # stat() raises ENAMETOOLONG, which pathlib does not swallow
    result = await project.call("get_lines", path=name)
    assert not result.success
    # Refused before the tool runs, naming the argument (see tools.arguments.argument_problem).
    assert result.error is not None
    assert "argument 'path'" in result.error and "303 bytes long" in result.error


async def test_get_lines_of_a_secret_asks_and_headless_refuses(project: Project) -> None:
    refused = await project.call("get_lines", path=".env")
    assert not refused.success and refused.details and refused.details["refused"] is True
    asked: list[ConfirmRequest] = []

    async def allow(request: ConfirmRequest) -> ConfirmDecision:
        asked.append(request)
        return ConfirmDecision("apply")

    project.ctx = project.ctx.replace(confirm=allow)
    allowed = await project.ok("get_lines", path=".env")
    assert "API_KEY" in allowed.data and asked[0].kind == "read_secret"


async def test_get_function_returns_the_exact_lines(project: Project) -> None:
    result = await project.ok("get_function", path="src/utils/math.ts", name="multiply")
    body = [line.split("| ", 1)[1] for line in result.data.splitlines()[1:]]
    source = (project.root / "src/utils/math.ts").read_text().splitlines()
    data = project.data(result)["matches"][0]
    assert body == source[data["lineStart"] - 1 : data["lineEnd"]]
    assert body[0].startswith("export function multiply") and body[-1] == "}"


async def test_get_function_finds_methods_and_python(project: Project) -> None:
    method = await project.ok("get_function", path="src/services/user.ts", name="find")
    assert "UserService.find" in method.data and "this.users.find" in method.data
    py = await project.ok("get_function", path="py/app/models.py", name="Order.total")
    assert "def total(self) -> float:" in py.data


async def test_get_function_not_found_names_where_it_is(project: Project) -> None:
    result = await project.call("get_function", path="src/index.ts", name="multiply")
    assert not result.success
    assert "src/utils/math.ts" in (result.error or "")
    close = await project.call("get_function", path="src/utils/math.ts", name="multiplyy")
    assert "Did you mean: multiply" in (close.error or "")


async def test_get_function_in_a_40k_line_file(project: Project) -> None:
    parts = [f"def filler_{i}(x):\n    return x + {i}\n\n" for i in range(13_400)]
    target = (
        "def needle(a, b):\n    total = a * b\n    for i in range(3):\n"
        "        total += i\n    return total\n\n"
    )
    parts.insert(9_000, target)
    (project.root / "big.py").write_text("".join(parts))
    assert len((project.root / "big.py").read_text().splitlines()) > 40_000
    project.indexer.update_paths(["big.py"], [])
    result = await project.ok("get_function", path="big.py", name="needle")
    code = "\n".join(line.split("| ", 1)[1] for line in result.data.splitlines()[1:])
    assert code == target.rstrip("\n")


async def test_get_class_with_members_and_interfaces(project: Project) -> None:
    result = await project.ok("get_class", path="src/services/user.ts", name="UserService")
    assert "3 methods" in result.data and "create(" in result.data
    assert "export class UserService {" in result.data
    interface = await project.ok("get_class", path="src/services/user.ts", name="User")
    assert "export interface User {" in interface.data
    py = await project.ok("get_class", path="py/app/models.py", name="Order")
    assert "def total" in py.data
    missing = await project.call("get_class", path="src/services/user.ts", name="UserServic")
    assert "Did you mean: UserService" in (missing.error or "")


async def test_get_class_members_keep_default_values(project: Project) -> None:
    (project.root / "py" / "app" / "client.py").write_text(
        "class Client:\n"
        "    def __init__(self, name=None, *, retries: int = 3, tags: list[str] | None = None):\n"
        "        self.name = name\n"
        "\n"
        "    def get(self, url, timeout=2.5, **kw):\n"
        "        return url\n",
        encoding="utf-8",
    )
    (project.root / "src" / "api.ts").write_text(
        "export class Api {\n"
        '  constructor(private base: string = "/api", retries = 3) {}\n'
        "  get(url: string, opts?: object, timeout: number = 1000) { return url; }\n"
        "}\n",
        encoding="utf-8",
    )
    project.indexer.update_paths(["py/app/client.py", "src/api.ts"], [])
    py = await project.ok("get_class", path="py/app/client.py", name="Client")
    assert "__init__(self, name=None, retries=3, tags=None) lines 2-3" in py.data
    assert "get(self, url, timeout=2.5, **kw) lines 5-6" in py.data
    ts = await project.ok("get_class", path="src/api.ts", name="Api")
    assert 'constructor(base="/api", retries=3)' in ts.data
    assert "get(url, opts?, timeout=1000)" in ts.data


async def test_get_structure_tree_with_counts(project: Project) -> None:
    result = await project.ok("get_structure")
    assert "src/ (4 files)" in result.data
    assert "├── " in result.data or "└── " in result.data
    inner = await project.ok("get_structure", path="src", depth=1)
    assert "services/ (1 files)" in inner.data and "user.ts" not in inner.data
    assert "collapsed" in inner.data
    deep = await project.ok("get_structure", path="src", depth=5)
    assert "user.ts" in deep.data
    assert project.data(deep)["files"] == 4


async def test_get_structure_unknown_folder(project: Project) -> None:
    result = await project.call("get_structure", path="srcc")
    assert not result.success and "Did you mean: src" in (result.error or "")


async def test_get_structure_caps_entries_and_says_how_to_see_more(project: Project) -> None:
    folder = project.root / "generated"
    folder.mkdir()
    for number in range(320):
        (folder / f"file_{number:03}.txt").write_text(f"{number}\n")
    project.indexer.update_paths(["generated"], [])
    result = await project.ok("get_structure", depth=2)
    assert "generated/ (320 files)" in result.data
    assert "more entries not shown (limit 300)" in result.data
    assert len(result.data.splitlines()) <= 302
