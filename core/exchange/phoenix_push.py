"""A run's scores pushed onto the Phoenix spans its answers came from (`export-scores --format phoenix --push URL`),
through Phoenix's own client (the extra `gradedesk[phoenix]`).

The annotations are scores_phoenix.py's, on the LLM spans `import-traces --phoenix` kept (core/store/traces.py):
people's grades, failure labels, notes and dimension scores (annotator kind HUMAN), claim marks, and the judge's and
other machines' verdicts (LLM, CODE). Phoenix keeps one annotation per span, name and identifier and updates it when
the same three come again, so a second push updates rather than duplicates. The client has no delete: a score an
earlier push carried that the store no longer has (scores_withdrawn.py) is overwritten with the label `withdrawn`.
A run whose answers did not come from Phoenix traces is refused: its span ids would attach to nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gradedesk.core.errors import UserError
from gradedesk.core.exchange.extras import need, server_errors
from gradedesk.core.exchange.scores_phoenix import phoenix_annotations
from gradedesk.core.exchange.scores_withdrawn import withdrawn_records
from gradedesk.core.store.connection import Store
from gradedesk.core.store.traces import run_spans

WITHDRAWN = "withdrawn"
BATCH = 100  # annotations a request


@dataclass(frozen=True)
class PushReport:
    annotations: int  # sent (created or updated)
    withdrawn: int  # of them, scores the store no longer has, labelled withdrawn
    spans: int  # distinct spans annotated


def push_records(store: Store, run_id: int) -> Iterator[dict]:
    """The annotations a push sends: the run's current ones, then the withdrawn ones labelled `withdrawn`."""
    phoenix = {t.span_id for t in run_spans(store, run_id).values() if t.source == "phoenix"}
    if not phoenix:
        raise UserError(f"run {run_id}: its answers did not come from Phoenix traces, so their span ids attach to "
                        "nothing; `gradedesk import-traces --phoenix URL` makes a run that can be pushed")
    for record in phoenix_annotations(store, run_id):
        if record["span_id"] in phoenix:
            yield record
    for gone in withdrawn_records(store, run_id, "phoenix"):
        if gone["span_id"] in phoenix:
            yield {**gone, "annotator_kind": "HUMAN", "result": {"label": WITHDRAWN},
                   "metadata": {"withdrawn": True}}


def push_phoenix(store: Store, run_id: int, url: str) -> PushReport:
    """Send the run's annotations to the Phoenix server at `url`; one line on a server that is down or refuses."""
    records = list(push_records(store, run_id))
    client = need("phoenix.client", "phoenix", "pushing to Phoenix").Client(base_url=url.rstrip("/"))
    for i in range(0, len(records), BATCH):
        with server_errors(url, "Phoenix", f"to the annotations ({i} of {len(records)} sent before)"):
            client.spans.log_span_annotations(span_annotations=records[i:i + BATCH], sync=True)
    gone = sum(r.get("result") == {"label": WITHDRAWN} for r in records)
    return PushReport(len(records), gone, len({r["span_id"] for r in records}))
