"""The desk session: the one owner of what a person's desk holds (the run and the budget shown, the item on screen,
the order, the filters, what blind first shows, the person), and the one store call behind each desk action. No
textual here: the grading screen draws what the session returns, and tests drive a session directly on a real store.

Every action is two halves. On the UI thread the session plans it (`DeskSession.step`, `.grade`, ...): it reads its
state and returns a `Job[R]`, a function of the Store that carries every value it needs (never "the current item": by
the time it runs, the desk may show another), typed by its result R. The desk runs the job on its store thread (the
one door: tui/db.py) and hands the result back to the session (`DeskSession.landed`, `.opened`, ...), which updates
its state and says what to draw. `run_job(store, job)` runs a job inline, which is how tests and benchmarks drive it.

Writes (grades, labels, scores, notes, preferences, undo, flags) are `Write`s: each joins the session's queue of
unsaved writes, in the order typed, when it is planned, and leaves it when its job's `Shown` answer lands. A job that
failed leaves its write in the queue (`DeskSession.unsaved`), in order, for the desk to retry or report.

While the person reads, the session prepares the neighbours of the item shown (`DeskSession.prepare`), so that j, k, n
and d are a swap rather than a store job (neighbours.py).

The session is one type joined from a module per job: state.py (what it holds, loading and taking in an item),
order.py (the item order and filters), neighbours.py (the moves to a neighbour, prepared ahead), writes.py (the write
queue), settings.py, counts.py (the figures), watch.py (the lease, other desks' writes); jobs.py has the typed jobs
and answers, opening.py the opening of a desk.
"""

from __future__ import annotations

from gradedesk.core.review.session.counts import Counts
from gradedesk.core.review.session.jobs import (Find, Job, Landed, Plan, Prepared, RecheckPlan, Refreshed, Request,
                                                Shown, Target, Write, run_job)
from gradedesk.core.review.session.neighbours import Neighbours
from gradedesk.core.review.session.opening import Opening, open_desk
from gradedesk.core.review.session.order import (NEIGHBOURS, RUN_KEYS, Move, disagrees, next_in_list, next_in_order,
                                                 recheck_questions)
from gradedesk.core.review.session.settings import Settings
from gradedesk.core.review.session.watch import Watch
from gradedesk.core.review.session.writes import Undone, WriteQueue, saved_text, undo
from gradedesk.core.store.connection import Store
from gradedesk.core.store.leases import RENEW_SECONDS, Lease
from gradedesk.core.store.run_records import RunInfo

__all__ = ["NEIGHBOURS", "RENEW_SECONDS", "RUN_KEYS", "DeskSession", "Find", "Job", "Landed", "Lease", "Move", "Opening", "Plan",
           "Prepared", "RecheckPlan", "Refreshed", "Request", "RunInfo", "Shown", "Store", "Target", "Undone",
           "Write", "disagrees", "next_in_list", "next_in_order", "open_desk", "recheck_questions", "run_job",
           "saved_text", "undo"]


class DeskSession(Neighbours, WriteQueue, Settings, Counts, Watch):
    """A person's desk on one run of a store: what it shows and the store job behind each action (see the package)."""
