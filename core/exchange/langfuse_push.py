"""A run's scores pushed to Langfuse (`export-scores --format langfuse --push [URL]`) through its SDK's API client
(the extra `gradedesk[langfuse]`), with the keys in $LANGFUSE_PUBLIC_KEY and $LANGFUSE_SECRET_KEY.

The records are scores_langfuse.py's (on the imported trace and observation when the answer came from a Langfuse
trace export), sent in batches to the score API (POST /api/public/scores); their ids are stable, so a second push
updates. A score withdrawn since (scores_withdrawn.py) is deleted by its id. A server that cannot be reached or
refuses is one line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from gradedesk.core.errors import UserError
from gradedesk.core.exchange.extras import need
from gradedesk.core.exchange.scores_langfuse import langfuse_scores
from gradedesk.core.exchange.scores_withdrawn import withdrawn_records
from gradedesk.core.store.connection import Store

BATCH = 100
KEYS = ("LANGFUSE_PUBLIC_KEY", "LANGFUSE_SECRET_KEY")


@dataclass(frozen=True)
class LangfusePush:
    scores: int
    deleted: int


def push_langfuse(store: Store, run_id: int, host: str) -> LangfusePush:
    if not host:
        raise UserError("--push: give Langfuse's URL, or set LANGFUSE_HOST")
    missing = [k for k in KEYS if not os.environ.get(k)]
    if missing:
        raise UserError(f"--push: set {' and '.join(missing)} (the Langfuse project's API keys)")
    api = need("langfuse.api", "langfuse", "pushing to Langfuse")
    from langfuse.api.core.api_error import ApiError
    from langfuse.api.core.pydantic_utilities import parse_obj_as
    import httpx

    client = api.LangfuseAPI(base_url=host.rstrip("/"), username=os.environ[KEYS[0]], password=os.environ[KEYS[1]],
                             x_langfuse_public_key=os.environ[KEYS[0]])
    records = [parse_obj_as(api.CreateScoreRequest, r) for r in langfuse_scores(store, run_id)]
    gone = [r["id"] for r in withdrawn_records(store, run_id, "langfuse")]
    try:
        for i in range(0, len(records), BATCH):
            client.scores.create(request=records[i:i + BATCH])
        for score_id in gone:
            client.scores.delete(score_id)
    except ApiError as exc:
        raise UserError(f"{host}: Langfuse answered HTTP {exc.status_code}: {str(exc.body)[:200]}") from None
    except httpx.HTTPError as exc:
        raise UserError(f"{host}: Langfuse is not reachable ({type(exc).__name__}: {exc})") from None
    return LangfusePush(len(records), len(gone))
