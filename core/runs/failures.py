"""A run's failed answers as the user should see them: grouped by reason (core/providers/failures.py), with a count
and one example each; for prompts over the model's context, which ones, by how much and the largest budget that fits
(the context as the server's message or the endpoint's probe gave it). `run` prints them after its calls and `summary`
among its warnings; a failure no retry can fix (`stuck`) is left as it is when the run resumes."""

from __future__ import annotations

from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.providers.failures import (CONTEXT, context_limit, context_note, group_failures, group_lines,
                                               prompt_tokens, reason_of)
from gradedesk.core.store.answers import RunAnswer, Slot, run_answers
from gradedesk.core.store.bundles import bundle_rows
from gradedesk.core.store.connection import Store
from gradedesk.core.store.run_records import run_row

RETRY = "run the same command again to retry"


def stuck(answers: list[RunAnswer]) -> set[Slot]:
    """The failed answers a retry cannot fix (a prompt over the model's context): not asked again on resume."""
    return {(a.question_pk, a.method, a.budget) for a in answers
            if a.status == "error" and not reason_of(a.error).retryable}


def evidence_tokens(store: Store, answer: RunAnswer) -> int | None:
    """The tokens of a bundled answer's evidence (what its budget bought: a budget need not be filled); None for raw."""
    found = bundle_rows(store, answer.bundle_id) if answer.bundle_id is not None else None
    return found[0].total_tokens if found else None


def failure_lines(store: Store, run_id: int, retry: str = RETRY) -> list[str]:
    """A line per reason the run's answers failed (`retry` ends the lines a retry may fix), and the context note
    when prompts went over the context."""
    answers = [a for a in run_answers(store, run_id) if a.status == "error"]
    if not answers:
        return []
    where = {a.id: f"{a.question_id} {method_label(a.method, a.budget)}" for a in answers}
    lines = group_lines(group_failures([(where[a.id], a.error or "") for a in answers]), "answer", retry)
    over = [a for a in answers if reason_of(a.error).name == CONTEXT]
    if over:
        row = run_row(store, run_id)
        probed = [f.get("context_length") for f in row.config.get("endpoint_probes", {}).values()
                  if isinstance(f, dict)]
        context = next((c for c in (context_limit(a.error) for a in over) if c), None) or next(
            (c for c in probed if c), None)
        lines.append(context_note([(where[a.id], evidence_tokens(store, a), prompt_tokens(a.error) or 0)
                                   for a in over], context, row.config.get("max_tokens")))
    return lines
