"""Finding a rubric: what a `--rubric` argument names (a file, a stored version or the built-in rubric), and each
version stored once (in table rubrics: core/store/rubrics.py).

A stored rubric's text is its normal form (core/grading/rubric_format.py), so reading it back gives the same version.
Stores made before rubrics were files hold the judge's prompt under `judge-rubric/1`; that text is shown as it is, and
it cannot be judged with again (the built-in rubric replaces it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from gradedesk.core.errors import UserError
from gradedesk.core.grading.rubric_format import Rubric, builtin_rubric, parse_rubric
from gradedesk.core.jsonl import read_lines
from gradedesk.core.store import rubrics
from gradedesk.core.store.connection import Store

BUILTIN = "builtin"


class Versioned(Protocol):
    """A rubric of any kind as stored: its version and its normal form."""

    @property
    def version(self) -> str: ...

    @property
    def text(self) -> str: ...


R = TypeVar("R", bound=Versioned)


@dataclass(frozen=True)
class RubricKind(Generic[R]):
    """A kind of rubric file: the judge's grade rubric (GRADE) or its pairwise rubric (core/grading/pairwise_rubric.py):
    how its text is read and which one is built in. Both kinds are stored in one table, each version once."""

    name: str  # rubrics.kind: grade | pairwise
    parse: Callable[[str, str], R]  # (text, source) -> rubric; InputError names every problem
    builtin: Callable[[], R]


GRADE: RubricKind[Rubric] = RubricKind("grade", parse_rubric, builtin_rubric)


def store_rubric(store: Store, rubric: Versioned, kind: str = "grade") -> str:
    """Store the rubric under its version unless it is there already; return the version."""
    version = rubric.version
    with store.transaction():
        existing = rubrics.stored_text(store, version)
        if existing is None:
            rubrics.add_rubric(store, version, rubric.text, kind)
        elif existing != rubric.text:  # 8 hex digits of sha256 collided: never seen, but never silently merged
            raise UserError(f"rubric {version}: the store holds another text under this version; rename the rubric")
    return version


def stored_rubric(store: Store, version: str) -> Rubric:
    return stored_of_kind(store, version, GRADE)


def stored_of_kind(store: Store, version: str, kind: RubricKind[R]) -> R:
    text = rubrics.stored_text(store, version)
    if text is None:
        raise UserError(f"rubric {version}: not in {store.path} (see `gradedesk rubric history`)")
    try:
        return kind.parse(text, f"{store.path} rubric {version}")
    except UserError:
        raise UserError(f"rubric {version}: stored by an older gradedesk as a prompt, not a rubric file; "
                        "`gradedesk rubric show` prints the built-in rubric that replaced it") from None


def find_version(store: Store, spec: str, kind: str = "grade") -> str | None:
    """The stored version of that kind `spec` names: itself, a rubric name (its newest version) or a unique version
    prefix."""
    if rubrics.stored_text(store, spec, kind) is not None:
        return spec
    newest = rubrics.newest_named(store, spec, kind)
    if newest:
        return newest
    matches = rubrics.versions_starting(store, spec, kind)
    if len(matches) > 1:
        raise UserError(f"rubric {spec!r}: names {len(matches)} versions ({', '.join(sorted(matches)[:4])}, ...); "
                        "give more of the version")
    return matches[0] if matches else None


def read_rubric_file(path: str | Path, kind: RubricKind[R] = GRADE) -> R:  # type: ignore[assignment]
    """A rubric file (a grade rubric unless `kind` says); problems as `file:line: field: problem` (InputError)."""
    return kind.parse("\n".join(read_lines(path)), str(path))


def resolve_rubric(store: Store | None, spec: str | None, flag: str = "--rubric") -> Rubric:
    """The grade rubric `spec` names (see `resolve_of_kind`)."""
    return resolve_of_kind(store, spec, GRADE, flag)


def resolve_of_kind(store: Store | None, spec: str | None, kind: RubricKind[R], flag: str = "--rubric") -> R:
    """The rubric of `kind` that `spec` names: None or 'builtin' (the built-in one), a file, or a version stored in
    `store`."""
    if spec is None or spec == BUILTIN:
        return kind.builtin()
    path = Path(spec)
    if path.is_file():
        return read_rubric_file(path, kind)
    if path.exists():
        raise UserError(f"{flag}: {spec}: not a file")
    version = find_version(store, spec, kind.name) if store is not None else None
    if store is None or version is None:
        where = f" nor a rubric version in {store.path} (see `gradedesk rubric history`)" if store else ""
        raise UserError(f"{flag}: {spec}: no such file{where}")
    return stored_of_kind(store, version, kind)
