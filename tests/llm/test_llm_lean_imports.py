"""Start-up (issue 27) of a client: httpx is imported without its command line, and a plain-http
model server gets a TLS context that loads no CA bundle and trusts nothing."""

from __future__ import annotations

import json
import ssl
import subprocess
import sys

import pytest

from ipuaro.llm.http_client import tls_context

PROBE = """
import json, sys
{first}
from ipuaro.llm.lean_httpx import httpx
before = sorted(m for m in sys.modules if m.startswith(("httpx._main", "pygments", "rich")))
marked = "httpx._main" in sys.modules
import httpx._main  # still importable on purpose afterwards
print(json.dumps({{"loaded": before, "marked": marked, "client": hasattr(httpx, "AsyncClient"),
                  "cli": type(httpx.main).__name__}}))
"""


def _probe(first: str = "") -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(first=first)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_httpx_comes_without_its_command_line_which_stays_importable() -> None:
    report = _probe()
    assert report == {"loaded": [], "marked": False, "client": True, "cli": "function"}


def test_an_httpx_imported_earlier_is_left_as_it_is() -> None:
    report = _probe(first="import httpx")
    assert report["cli"] == "Command"  # httpx's own click command: nothing was blocked
    assert report["client"] is True


@pytest.mark.parametrize("url", ["http://127.0.0.1:11434", "HTTP://localhost:8080/v1"])
def test_a_plain_http_server_gets_a_context_that_trusts_no_certificate(url: str) -> None:
    context = tls_context(url)
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED  # never "skip the check"
    assert context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0  # no bundle loaded: nothing trusted


def test_an_https_server_keeps_httpx_verification() -> None:
    assert tls_context("https://api.example.com/v1") is True
