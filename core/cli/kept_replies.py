"""Replies an earlier command could not store and kept beside the store (core/store/kept_replies.py), taken in before
a command asks a model anything. `run` and `judge` (either mode) take in every kind: an answer, a verdict or score,
a pairwise reply, so whichever runs next on the store stores them and none of their calls is made again."""

from __future__ import annotations

from gradedesk.core.cli.output import info
from gradedesk.core.grading.judge import JUDGED, store_judged
from gradedesk.core.grading.pairwise_judge import PAIRWISE_REPLY, store_pairwise_reply
from gradedesk.core.runs.runner import ANSWER, store_answer
from gradedesk.core.store.connection import Store
from gradedesk.core.store.kept_replies import take_in

WRITERS = {ANSWER: store_answer, JUDGED: store_judged, PAIRWISE_REPLY: store_pairwise_reply}


def take_in_kept(store: Store) -> None:
    """Store every kept reply and say how many (nothing is said when there were none)."""
    if n := take_in(store, WRITERS):
        info(f"gradedesk: took in {n} repl{'y' if n == 1 else 'ies'} kept beside the store while it could not be "
             "written")
