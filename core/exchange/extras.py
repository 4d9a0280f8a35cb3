"""The optional extras some commands need (a client library not installed by default), asked for in one line."""

from __future__ import annotations

import importlib
from types import ModuleType

from gradedesk.core.errors import UserError


def need(module: str, extra: str, what: str) -> ModuleType:
    """`module` imported, or one line naming the extra that brings it (exit 2)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"{what} needs the {extra} extra: pip install 'gradedesk[{extra}]'") from None
