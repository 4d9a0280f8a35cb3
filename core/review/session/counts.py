"""The person's figures on the desk: the answers shown, the run's questions in order, and the progress and agreement
figures (each from its one definition in core/review/queue.py), counted in the background: keys never wait for them."""

from __future__ import annotations

from gradedesk.core.review import queue as review
from gradedesk.core.review.queue import Progress, QuestionOrder
from gradedesk.core.review.session.jobs import Job
from gradedesk.core.review.session.state import DeskState


class Counts(DeskState):
    """The session's counting jobs."""

    def count_total(self) -> Job[int] | None:
        run, person = self.run, self.person
        return None if run is None else Job("count answers", lambda store: review.count_shown(store, run, person),
                                            holds_keys=False)

    def order_questions(self) -> Job[QuestionOrder] | None:
        run, person = self.run, self.person
        return None if run is None else Job("order the questions",
                                            lambda store: review.question_order(store, run, person), holds_keys=False)

    def count(self) -> Job[Progress] | None:
        """The person's figures, counted again (once the answers shown are counted)."""
        run, person, total = self.run, self.person, self.total
        if run is None or total is None:
            return None
        return Job("count grades", lambda store: review.progress(store, run, person, total), holds_keys=False)
