"""The optional extras some commands need (a client library not installed by default), asked for in one line, and\nthe one-line errors of the servers they talk to."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from gradedesk.core.errors import UserError


def need(module: str, extra: str, what: str) -> ModuleType:
    """`module` imported, or one line naming the extra that brings it (exit 2)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"{what} needs the {extra} extra: pip install 'gradedesk[{extra}]'") from None


@contextmanager
def server_errors(url: str, tool: str, what: str) -> Iterator[None]:
    """A client's calls to `tool` at `url`: a server that is down or answers an error is one line (UserError)."""
    import httpx

    try:
        yield
    except httpx.HTTPStatusError as exc:
        body = exc.response.text.strip().replace("\n", " ")[:200]
        raise UserError(f"{url}: {tool} answered HTTP {exc.response.status_code} {what}"
                        + (f": {body}" if body else "")) from None
    except httpx.HTTPError as exc:
        raise UserError(f"{url}: {tool} is not reachable ({type(exc).__name__}: {exc})") from None
