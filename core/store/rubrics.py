"""Judge rubrics as stored: table rubrics (a version, its text, when it was stored).

What it gives: a version's text (`stored_text`), storing a new version (`add_rubric`), and the versions a name or a
prefix names (`newest_named`, `versions_starting`). What a rubric's text means is core/grading's.
"""

from __future__ import annotations

from gradedesk.core.store.connection import Store, utc_now


def stored_text(store: Store, version: str) -> str | None:
    text: str | None = store._scalar("SELECT text FROM rubrics WHERE version = ?", (version,))
    return text


def add_rubric(store: Store, version: str, text: str) -> None:
    """Store a version that is not stored yet (the caller checked, in its transaction)."""
    store._db.table("rubrics").insert({"version": version, "text": text, "created_at": utc_now()})


def newest_named(store: Store, name: str) -> str | None:
    """The newest stored version of rubric `name` (versions are `name/hash`)."""
    version: str | None = store._scalar("SELECT version FROM rubrics WHERE version LIKE ? || '/%' ESCAPE '\\' "
                                       "ORDER BY created_at DESC, rowid DESC LIMIT 1", (_like(name),))
    return version


def versions_starting(store: Store, prefix: str) -> list[str]:
    """Every stored version that starts with `prefix`."""
    return [r["version"] for r in store._query("SELECT version FROM rubrics WHERE version LIKE ? || '%' ESCAPE '\\'",
                                              (_like(prefix),))]


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
