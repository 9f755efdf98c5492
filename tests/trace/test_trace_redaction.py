from __future__ import annotations

from pathlib import Path

from ipuaro.trace.redaction import MASK, Redactor, env_values


def test_known_secret_shapes_are_masked() -> None:
    redactor = Redactor()
    text = (
        "key sk-proj-abcdEFGH12345678 and Authorization: Bearer eyJhbGciOi.payload.sig "
        "aws AKIAIOSFODNN7EXAMPLE end"
    )
    masked = redactor.text(text)
    assert "sk-proj" not in masked and "eyJhbGciOi" not in masked and "AKIAIOSF" not in masked
    assert masked.count(MASK) == 3
    assert "Bearer ***" in masked
    assert masked.endswith(" end")


def test_ordinary_text_is_untouched() -> None:
    text = "task-list sk-8 Bearer of bad news? AKIA is a prefix"
    assert Redactor().text(text) == text


def test_dotenv_values_are_masked_but_short_ones_are_not(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "# comment\nDB_PASSWORD='hunter2-long'\nexport TOKEN=abcdef123456\nDEBUG=true\nPORT=8080\n"
        "EMPTY=\n",
        encoding="utf-8",
    )
    assert env_values(tmp_path / ".env") == ["hunter2-long", "abcdef123456"]
    redactor = Redactor.for_project(tmp_path)
    assert redactor.text("pw hunter2-long tok abcdef123456 port 8080 true") == (
        "pw *** tok *** port 8080 true"
    )


def test_missing_dotenv_is_fine(tmp_path: Path) -> None:
    assert env_values(tmp_path / ".env") == []


def test_structures_are_masked_recursively_including_secret_keys() -> None:
    redactor = Redactor(["s3cr3t-value"])
    data = {
        "redis": {"password": "plain", "host": "localhost"},
        "items": ["s3cr3t-value inside", 3, None],
        "apiKey": "whatever",
        "maxTokens": 5,
    }
    assert redactor.value(data) == {
        "redis": {"password": MASK, "host": "localhost"},
        "items": ["*** inside", 3, None],
        "apiKey": MASK,
        "maxTokens": 5,
    }
