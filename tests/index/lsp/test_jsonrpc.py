"""LSP framing and the JSON-RPC process, against real child processes (no server needed)."""

from __future__ import annotations

import io
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from ipuaro.index.lsp.jsonrpc import JsonRpcProcess, ServerFailed, encode_frame, read_frame


def test_frames_round_trip_with_non_ascii_text() -> None:
    messages = [{"id": 1, "result": "héllo 😀"}, {"method": "x", "params": [1, 2]}]
    stream = io.BytesIO(b"".join(encode_frame(m) for m in messages))

    assert [read_frame(stream), read_frame(stream), read_frame(stream)] == [*messages, None]


def test_extra_headers_and_their_case_are_accepted() -> None:
    body = b'{"id":2,"result":null}'
    frame = b"content-type: application/vscode-jsonrpc\r\nCONTENT-LENGTH: %d\r\n\r\n" % len(body)
    assert read_frame(io.BytesIO(frame + body)) == {"id": 2, "result": None}


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"Content-Length: x\r\n\r\n{}", "bad Content-Length"),
        (b"Content-Length: 4\r\n\r\nnope", "not JSON"),
        (b"Content-Length: 2\r\n\r\n[]", "not a JSON object"),
        (b"Content-Length: 999999999999\r\n\r\n", "frame of"),
    ],
)
def test_a_broken_frame_is_a_server_failure(raw: bytes, problem: str) -> None:
    with pytest.raises(ServerFailed, match=problem):
        read_frame(io.BytesIO(raw))


def test_a_cut_frame_is_the_end_of_the_stream() -> None:
    assert read_frame(io.BytesIO(b"Content-Length: 10\r\n\r\n{}")) is None


ECHO = textwrap.dedent(
    """
    import sys
    from ipuaro.index.lsp.jsonrpc import encode_frame, read_frame
    out = sys.stdout.buffer
    def send(message):
        out.write(encode_frame(message)); out.flush()
    while (message := read_frame(sys.stdin.buffer)) is not None:
        if message.get("method") == "exit":
            sys.exit(0)
        if message.get("method") == "crash":
            sys.stderr.write("Error: asked to crash\\nbye\\n"); sys.stderr.flush()
            sys.exit(3)
        if message.get("method") == "ask-back":  # a request of the server's before the answer
            send({"jsonrpc": "2.0", "id": "s1", "method": "workspace/configuration",
                  "params": {"items": [{}, {}]}})
            reply = read_frame(sys.stdin.buffer)
            send({"jsonrpc": "2.0", "id": message["id"], "result": reply["result"]})
        elif message.get("method") == "fail":
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32601, "message": "no such thing"}})
        elif "id" in message:
            send({"jsonrpc": "2.0", "id": message["id"], "result": message.get("params")})
    """
)


@pytest.fixture
def echo(tmp_path: Path) -> JsonRpcProcess:
    script = tmp_path / "echo_server.py"
    script.write_text(ECHO, encoding="utf-8")
    return JsonRpcProcess([sys.executable, str(script)], tmp_path)


def test_requests_get_their_own_answers_and_server_requests_are_answered(
    echo: JsonRpcProcess,
) -> None:
    try:
        assert echo.request("echo", {"a": 1}, 10) == {"a": 1}
        assert echo.request("ask-back", None, 10) == [None, None]
        with pytest.raises(ServerFailed, match="answered an error: no such thing"):
            echo.request("fail", None, 10)
        assert echo.request("echo", [2], 10) == [2]  # still usable after an error answer
    finally:
        echo.close()
    assert not echo.alive


def test_an_exit_fails_the_waiting_request_with_the_servers_own_words(
    echo: JsonRpcProcess,
) -> None:
    with pytest.raises(ServerFailed, match=r"exited \(code 3\): Error: asked to crash"):
        echo.request("crash", None, 10)
    assert not echo.alive
    with pytest.raises(ServerFailed):
        echo.request("echo", None, 10)
    echo.close()


def test_a_program_that_does_not_exist_is_a_server_failure(tmp_path: Path) -> None:
    with pytest.raises(ServerFailed, match="cannot start 'no-such-program-here'"):
        JsonRpcProcess(["no-such-program-here", "--stdio"], tmp_path)


FLOOD = textwrap.dedent(
    """
    import sys, time
    stream = sys.stdout if sys.argv[1] == "stdout" else sys.stderr
    for _ in range(128):  # 8 MB without one line break, then silence
        stream.buffer.write(b"x" * 65536)
    stream.buffer.flush()
    time.sleep(60)
    """
)


def _flood(tmp_path: Path, where: str) -> JsonRpcProcess:
    script = tmp_path / "flood_server.py"
    script.write_text(FLOOD, encoding="utf-8")
    return JsonRpcProcess([sys.executable, str(script), where], tmp_path)


def test_a_server_flooding_stdout_without_line_breaks_is_a_failure_not_a_wait(
    tmp_path: Path,
) -> None:
    """A header line is read up to a bound: the flood is a broken stream, said at once, not
    kept in memory while the request waits out its time."""
    process = _flood(tmp_path, "stdout")
    try:
        with pytest.raises(ServerFailed, match="header line longer than"):
            process.request("echo", None, 30)
    finally:
        process.close()


def test_a_server_flooding_stderr_without_line_breaks_is_read_in_pieces(tmp_path: Path) -> None:
    """stderr is read in bounded pieces, so its tail (why a server stopped) is kept small and
    filled while the flood goes on."""
    process = _flood(tmp_path, "stderr")
    try:
        for _ in range(600):  # until the first piece is read: the 8 MB are written at once
            if process.stderr_tail:
                break
            threading.Event().wait(0.05)
        assert process.stderr_tail, "nothing of stderr read while it had no line break"
        assert all(len(line) <= 300 for line in process.stderr_tail)
    finally:
        process.close()
