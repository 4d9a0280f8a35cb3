"""The single entrance to store.db (sqlite-utils).

No connection is made at import time; callers pass a path. Opening applies store.db-schema.sql (idempotent), records the
schema version in PRAGMA user_version, upgrades a store made by an older gradedesk, and refuses a store written by a
newer one.

Upgrades live in the schema file too, so it stays the only DDL: its CREATE statements always describe the newest
tables, and a section headed `-- migrate to N` holds what turns a version N-1 store into version N (ALTER TABLE for a
new column, DROP VIEW for a changed view, data fixes). The schema version is the highest N (1 without sections). A
new store runs the CREATE statements only; an older one first runs the sections above its version, in order, then the
CREATE statements, all in one transaction. WAL mode and a busy timeout let
two desks and a CLI share one file. Each logical write runs in one transaction (`with store.transaction():`).
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gradedesk.core.config import store_path
from gradedesk.core.errors import UserError
from gradedesk.core.store.gold import gold_hash

SCHEMA_FILE = "store.db-schema.sql"  # package data: a symlink to the top-level file in a checkout, a copy in a wheel
BUSY_TIMEOUT_MS = 10_000

if TYPE_CHECKING:
    import sqlite_utils


class StoreError(UserError):
    """A problem with the store; `transient` when the same write may succeed later (locked, read-only, full)."""

    def __init__(self, message: str, *, transient: bool = False):
        super().__init__(message)
        self.transient = transient


class Preempted(Exception):
    """A read run under `Store.preemptible()` was stopped by `Store.preempt()`: something more urgent waits for the
    connection. Nothing was written; the caller runs the read again later, if it still wants it."""


SQLParams = tuple[object, ...] | dict[str, object]
PREEMPT_CHECK = 20_000  # SQLite VM instructions between looks at the preempt flag (a look takes Python's GIL)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def event_time() -> str:
    """The created_at of a person's event (grade, preference): to the microsecond, since the desk's undo takes back
    the newest of them across tables, and a person can press two keys within a second."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _quoted(name: str) -> str:
    """A table or column name as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def column_list(alias: str, names: Iterable[str]) -> str:
    """SQL: the columns `names` of table alias `alias`, comma-separated (a record's fields, read in their order)."""
    return ", ".join(f"{alias}.{n}" for n in names)


_MIGRATE = re.compile(r"^-- migrate to (\d+)\s*$", re.M)


def schema_sql() -> str:
    from importlib.resources import files

    resource = files(__package__).joinpath(SCHEMA_FILE)
    try:
        return resource.read_text(encoding="utf-8")
    except OSError:
        raise StoreError(f"{resource}: schema file missing from the installed package; reinstall gradedesk") from None


@functools.cache
def schema_parts(sql: str | None = None) -> tuple[list[str], dict[int, list[str]]]:
    """(the CREATE statements, {N: the statements that upgrade a version N-1 store to N})."""
    text = schema_sql() if sql is None else sql
    pieces = _MIGRATE.split(text)
    migrations = {int(pieces[i]): _statements(pieces[i + 1]) for i in range(1, len(pieces), 2)}
    if sorted(migrations) != list(range(2, len(migrations) + 2)):
        raise StoreError(f"{SCHEMA_FILE}: migrate sections must number 2, 3, ... in order, found {sorted(migrations)}")
    return _statements(pieces[0]), migrations


def schema_version() -> int:
    """The version this gradedesk writes: the highest `-- migrate to N` of the schema file, 1 without one."""
    return max(schema_parts()[1], default=1)


class Store:
    """An open store.db. Use `open_store`; close with `.close()` or as a context manager.

    What the rest of gradedesk holds: its path, `transaction()` and `close()`. The connection and the SQL helpers are
    private (`_conn`, `_db`, `_query`, `_scalar`, `_insert`, `_upsert`) to the modules of core/store/, which own the
    tables and give typed functions over them; the lint (SLF001) and the type check keep every other layer off them.
    Tests and benchmarks reach in on purpose, to check what was written.

    Reads and one-row writes are plain SQL on the connection; sqlite-utils (`_db`) does the writes of many rows and
    updates, and is imported at its first use: it imports numpy and, where installed, pandas (about a third of the
    desk's opening at a million answers), which neither `gradedesk --help` nor the desk needs.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection):
        self.path = path
        self._conn = conn
        self._depth = 0
        self.created = False  # made by this open: removed again if the command fails on the user's input
        self._preempted = False

    @contextmanager
    def preemptible(self) -> Iterator[None]:
        """Run a read that another thread may stop with `preempt()` (the desk's store thread: a neighbour loaded
        ahead gives way to the key the person just pressed). Its statement stops within a few thousand VM
        instructions and Preempted is raised; so is every statement it starts afterwards."""
        self._preempted = False
        self._conn.set_progress_handler(lambda: self._preempted, PREEMPT_CHECK)
        try:
            yield
        except sqlite3.OperationalError as exc:
            if self._preempted and "interrupt" in str(exc):  # SQLite's "interrupted", from the handler above
                raise Preempted(str(exc)) from None
            raise
        finally:
            self._conn.set_progress_handler(None, 0)
            self._preempted = False

    @functools.cached_property
    def _db(self) -> sqlite_utils.Database:
        import sqlite_utils

        return sqlite_utils.Database(self._conn)

    def _insert(self, table: str, row: Mapping[str, object]) -> int:
        """Insert one row (column: value) and return its rowid."""
        columns = ", ".join(_quoted(c) for c in row)
        cursor = self._conn.execute(f"INSERT INTO {_quoted(table)} ({columns}) VALUES ({', '.join('?' * len(row))})",
                                    tuple(row.values()))
        return cast(int, cursor.lastrowid)

    def _upsert(self, table: str, row: Mapping[str, object], key: tuple[str, ...]) -> None:
        """Insert one row, or update the other columns of the row with the same `key` columns (its primary key)."""
        columns = ", ".join(_quoted(c) for c in row)
        update = ", ".join(f"{_quoted(c)} = excluded.{_quoted(c)}" for c in row if c not in key)
        self._conn.execute(f"INSERT INTO {_quoted(table)} ({columns}) VALUES ({', '.join('?' * len(row))}) "
                           f"ON CONFLICT ({', '.join(_quoted(c) for c in key)}) DO UPDATE SET {update}",
                           tuple(row.values()))

    def preempt(self) -> None:
        """Stop the read running under `preemptible()` (from another thread; no effect outside one)."""
        self._preempted = True

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        # a bad file or flag must leave nothing behind, not even an empty store; nor must Ctrl-C before anything was
        # kept (e.g. while the first index of a new store runs: the index is one transaction)
        remove = self.created and exc_type is not None and (
            issubclass(exc_type, UserError) or (issubclass(exc_type, KeyboardInterrupt) and self._empty()))
        self.close()
        if remove:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def _empty(self) -> bool:
        try:
            return not self._conn.execute("SELECT EXISTS (SELECT 1 FROM repos) OR EXISTS (SELECT 1 FROM runs) "
                                         "OR EXISTS (SELECT 1 FROM questions)").fetchone()[0]
        except sqlite3.Error:  # interrupted before the schema was made
            return True

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction per logical write; nested calls join the outer one. The body calls the store's functions."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._depth = 1
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                if self._conn.in_transaction:  # a full disk or an I/O error may have rolled it back already
                    self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:  # locked past the busy timeout, read-only, full, damaged: a user's fault
            fault = store_fault(self.path, exc)
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise fault from None
        finally:
            self._depth = 0

    def _query(self, sql: str, params: SQLParams = ()) -> list[dict[str, Any]]:
        cursor = self._conn.execute(sql, params)
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, row)) for row in cursor]

    def _scalar(self, sql: str, params: SQLParams = ()) -> Any:
        row = self._conn.execute(sql, params).fetchone()
        return row[0] if row else None

    def data_version(self) -> int:
        """SQLite's PRAGMA data_version: it moves when another connection commits to the file (this connection's own
        commits leave it), so a desk sees other desks' writes by looking at it."""
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    @property
    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])


# What a store fault means for the person at the keyboard, by SQLite's own message: (words in it, what to say).
_FAULTS = (
    (("malformed", "not a database"),
     "damaged or not an SQLite file ({error}); restore it from a backup or a copy and run again"),
    (("disk i/o error",),  # a write past a file-size limit or on a failing disk; a full one says so (below)
     "could not be written ({error}): the disk may be full or failing; free some space and run again (nothing of "
     "this step was stored)"),
    (("readonly", "read-only", "unable to open", "permission"),
     "cannot be written ({error}); make the file and its folder writable, or copy the store somewhere writable"),
    (("disk is full", "database or disk is full"),
     "the disk is full ({error}); free some space and run again (nothing of this step was stored)"),
    (("locked", "busy"),
     "another process has held it for over {timeout} s ({error}); let it finish (a desk, a run, a judge) and run "
     "again"),
)


def store_fault(path: str | os.PathLike[str], exc: BaseException) -> StoreError:
    """An SQLite error on the store as one line naming the store and what to do. Errors that no user causes
    (a bad statement) are not faults: they are re-raised as they are, a bug."""
    if isinstance(exc, StoreError):
        return exc
    error = str(exc)
    if isinstance(exc, sqlite3.DatabaseError):
        for n, (words, advice) in enumerate(_FAULTS):
            if any(w in error.lower() for w in words):
                return StoreError(f"{path}: store {advice.format(error=error, timeout=BUSY_TIMEOUT_MS // 1000)}",
                                  transient=n > 0)  # all but a damaged store can pass
    raise exc


def _sqlite_header(path: Path) -> bool:
    """Whether the file is empty (SQLite makes a new database in it) or starts as every SQLite file does: a store cut
    to a few bytes would otherwise be read as an empty one."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError:
        return True  # unreadable: SQLite's own error names it
    return not head or head == b"SQLite format 3\x00"


def _writable(path: Path) -> bool:
    """Whether SQLite can write the store: the file and its folder (WAL makes its -wal and -shm files beside it)."""
    folder = path.parent if str(path.parent) else Path(".")
    return not path.exists() or (os.access(path, os.W_OK) and os.access(folder, os.W_OK))


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves, so one user action is exactly one transaction
    if not _writable(path):
        return _connect_read_only(path)
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    _setup(conn)
    return conn


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A store gradedesk cannot write: read-only, so the commands that only read it work (`summary`, `agree`,
    `export`...) and a write fails as a fault. In a read-only folder SQLite cannot make the -shm file WAL needs, so
    the file is opened as immutable (nothing can change it while we read: nobody can write there either)."""
    from urllib.parse import quote

    uri = f"file:{quote(str(path.absolute()))}?mode=ro"
    folder_writable = os.access(path.parent if str(path.parent) else Path("."), os.W_OK)
    if not folder_writable:
        uri += "&immutable=1"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False)
    _setup(conn)
    return conn


def _setup(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.create_function("gold_hash", 3, gold_hash, deterministic=True)  # used by the schema's trigger and queries


def open_store(path: str | os.PathLike[str] | None = None, *, create: bool = True) -> Store:
    """Open (and with create=True make or upgrade) the store at `path` (default: $GRADEDESK_STORE or ./store.db)."""
    p = Path(path or store_path())
    created = not p.exists()
    if not p.exists() and not create:
        raise StoreError(f"{p}: no such store; build one with `gradedesk demo`, `gradedesk run` or `gradedesk import`")
    if p.exists() and p.is_dir():
        raise StoreError(f"{p}: is a directory, not a store")
    if not p.exists() and not p.parent.exists():
        raise StoreError(f"{p}: folder {p.parent} does not exist")
    if not created and not _sqlite_header(p):
        raise StoreError(f"{p}: not a gradedesk store (no SQLite header: cut short or another kind of file); restore "
                         "it from a backup or a copy, or name another store with --store")
    try:
        conn = _connect(p)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{p}: not a gradedesk store ({exc}); restore it from a backup or a copy, or name another "
                         "store with --store") from None
    newest = schema_version()
    if version > newest:
        conn.close()
        raise StoreError(
            f"{p}: made by a newer gradedesk (schema {version}, this one reads up to {newest}); upgrade gradedesk"
        )
    if version == 0 and _has_foreign_tables(conn):
        conn.close()
        raise StoreError(f"{p}: an SQLite file that is not a gradedesk store")
    store = Store(p, conn)
    store.created = created
    if not _writable(p):
        if version < newest:
            conn.close()
            raise StoreError(f"{p}: store of an older gradedesk (schema {version}) that cannot be written, so it cannot "
                             "be upgraded; make it writable and run again")
        return store
    try:
        conn.execute("PRAGMA journal_mode = WAL")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise store_fault(p, exc) from None
    if version < newest:
        creates, migrations = schema_parts()
        # the upgrade and the whole schema in one transaction: a store is either fully made or not at all
        try:
            with store.transaction():
                for step in range(version + 1, newest + 1) if version else ():
                    for statement in migrations[step]:
                        if not _column_exists(conn, statement):
                            conn.execute(statement)
                for statement in creates:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {newest}")
        except BaseException:
            store.close()
            raise
    return store


_ADD_COLUMN = re.compile(r"^\s*ALTER\s+TABLE\s+(\w+)\s+ADD\s+(?:COLUMN\s+)?(\w+)", re.I)


def _column_exists(conn: sqlite3.Connection, statement: str) -> bool:
    """An ADD COLUMN step whose column is already there (a store upgraded half-way by hand) is skipped, not fatal."""
    m = _ADD_COLUMN.match(statement)
    if m is None:
        return False
    return any(row[1] == m.group(2) for row in conn.execute(f"PRAGMA table_info({m.group(1)})"))


def _has_foreign_tables(conn: sqlite3.Connection) -> bool:
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return bool(names) and "answers" not in names


def _statements(sql: str) -> list[str]:
    """Split the schema into statements (sqlite3.complete_statement knows where each ends)."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        if not buf.strip() and line.strip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
