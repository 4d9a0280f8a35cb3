"""Secrets out of server texts: the key itself, and anything that looks like a bearer token or a key."""

from __future__ import annotations

from gradedesk.core.text.redact import redact, remove_secrets


def test_the_given_key_and_key_looking_strings_are_redacted():
    key = "sk-proj-abcdef0123456789"
    assert redact(f"HTTP 500: upstream failed for key Bearer {key}", [key]) == (
        "HTTP 500: upstream failed for key Bearer [redacted]")
    assert redact("Authorization: Bearer abc.def-ghi123") == "Authorization: Bearer [redacted]"
    assert redact('{"api_key": "AIzaSyD123456"}') == '{"api_key": "[redacted]"}'
    assert redact("x-api-key: abcdefgh12") == "x-api-key: [redacted]"
    assert redact("http://bob:hunter22@host/v1") == "http://bob:[redacted]@host/v1"
    assert redact("a key we were not told about: sk-abcdefgh") == "a key we were not told about: [redacted]"
    assert redact("short-key xyz", ["xyz"]) == "short-key xyz"  # too short to be a key: ordinary words stay


def test_ordinary_text_is_left_alone():
    for text in ("the token is valid", "use a Bearer token here", "max_tokens=512", "token budget: must be 1",
                 "Basic authentication", None, ""):
        assert redact(text) == text


def test_remove_secrets_touches_only_the_secret():
    assert remove_secrets("Bearer abcdefgh and sk-123456", ["sk-123456"]) == "Bearer abcdefgh and [redacted]"
