"""The answer_traces table: where an answer read from an application's traces came from (its source, server, project,
side label, trace and span), so grades can go back onto the span and the desk can say where an item came from.

`add_answer_trace` stores one with its answer (inside the importer's transaction); `run_trace_ids` lists a run's
traces already imported (a re-import adds only new ones); `run_spans` maps a run's answers to their spans (the score
exports and pushes); `answer_trace` is one answer's origin (the desk); `side_labels` names a run's two sides.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields

from gradedesk.core.store.connection import Store


@dataclass(frozen=True, slots=True)
class AnswerTrace:
    answer_id: int
    source: str  # phoenix | langfuse | inspect | promptfoo
    endpoint: str | None  # the server's base URL; None for an export file; an eval log's absolute path
    project: str
    side: str  # the label the desk shows instead of raw/bundled
    trace_id: str
    span_id: str
    content: str | None = None  # a hash of what was read (an eval log's sample), to tell a log that changed since


_COLUMNS = ", ".join(f.name for f in fields(AnswerTrace))


def add_answer_trace(store: Store, trace: AnswerTrace) -> None:
    store._conn.execute(f"INSERT INTO answer_traces ({_COLUMNS}) VALUES ({', '.join('?' * len(fields(trace)))})",
                        astuple(trace))


def run_trace_ids(store: Store, run_id: int) -> set[str]:
    """The trace ids the run's answers came from."""
    return set(run_trace_contents(store, run_id))


def run_trace_contents(store: Store, run_id: int) -> dict[str, tuple[int, str | None]]:
    """{trace id: (its answer's id, the hash of what was read)} of the run's answers that came from traces or logs."""
    return {r[0]: (r[1], r[2]) for r in store._conn.execute(
        "SELECT t.trace_id, t.answer_id, t.content FROM answer_traces t JOIN answers a ON a.id = t.answer_id "
        "WHERE a.run_id = ?", (run_id,))}


def run_spans(store: Store, run_id: int) -> dict[int, AnswerTrace]:
    """{answer id: its trace} of the run's answers that came from traces."""
    return {r[0]: AnswerTrace(*r) for r in store._conn.execute(
        f"SELECT {', '.join('t.' + f.name for f in fields(AnswerTrace))} FROM answer_traces t "
        "JOIN answers a ON a.id = t.answer_id WHERE a.run_id = ?", (run_id,))}


def answer_trace(store: Store, answer_id: int) -> AnswerTrace | None:
    row = store._conn.execute(f"SELECT {_COLUMNS} FROM answer_traces WHERE answer_id = ?", (answer_id,)).fetchone()
    return None if row is None else AnswerTrace(*row)


def side_labels(store: Store, run_id: int) -> dict[str, str]:
    """{answer method (raw, bundle): the side label its traces carry} of a run imported from traces; {} otherwise."""
    return {r[0]: r[1] for r in store._conn.execute(
        "SELECT a.method, min(t.side) FROM answer_traces t JOIN answers a ON a.id = t.answer_id "
        "WHERE a.run_id = ? GROUP BY a.method", (run_id,))}
