"""Runs as the rest of gradedesk names them: resolve a RUN argument, list runs, and a run's settings (RunInfo).

Every command that takes RUN and the desk read runs through here, not through the benchmark runner that makes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradedesk.core.errors import UserError
from gradedesk.core.store.connection import Store, StoreError


def resolve_run(store: Store, run: str | int | None) -> int:
    """A run id from an id, "latest" (the newest run) or None (also the newest); one clear error otherwise."""
    if run is None or str(run).strip().lower() == "latest":
        run_id = store.scalar("SELECT max(id) FROM runs")
        if run_id is None:
            raise StoreError(f"{store.path}: no runs yet; make one with `gradedesk run`, `gradedesk demo` "
                             f"or `gradedesk import`")
        return int(run_id)
    try:
        run_id = int(run)
    except (TypeError, ValueError):
        raise UserError(f"RUN: {run!r} is not a run id or 'latest'") from None
    if store.scalar("SELECT 1 FROM runs WHERE id = ?", (run_id,)) is None:
        raise UserError(f"RUN: no run {run_id} in {store.path} (see `gradedesk runs`)")
    return run_id


@dataclass(frozen=True)
class RunInfo:
    id: int
    label: str | None
    provider: str
    model: str | None
    benchmark: str | None
    primary_budget: int  # the bundled answer shown beside raw
    order_seed: int
    rubric_version: str | None  # newest rubric in the store: stamped on each human grade

    @property
    def title(self) -> str:
        parts = [f"run {self.id}"]
        if self.label:
            parts.append(self.label)
        parts.append(self.model or self.provider)
        return " · ".join(parts)


def run_info(store: Store, run_id: int) -> RunInfo:
    rows = store.query("SELECT * FROM runs WHERE id = ?", (run_id,))
    if not rows:
        raise UserError(f"--run: no run {run_id} in {store.path}")
    r = rows[0]
    budget = r["primary_budget"]
    if budget is None:  # older or imported runs: the largest budget answered
        budget = store.scalar("SELECT max(budget) FROM answers WHERE run_id = ? AND method = 'bundle'", (run_id,)) or 0
    rubric = store.scalar("SELECT version FROM rubrics ORDER BY created_at DESC, version DESC LIMIT 1")
    return RunInfo(r["id"], r["label"], r["provider"], r["model"], r["benchmark"], int(budget), int(r["order_seed"]),
                   rubric)



def list_runs(store: Store) -> list[dict]:
    """Every run, newest first, with its answer counts by status."""
    return store.query("""
        SELECT r.id, r.created_at, r.source, r.label, r.provider, r.model, r.endpoint_host, r.benchmark,
               r.budgets, r.primary_budget,
               (SELECT count(DISTINCT a.question_pk) FROM answers a WHERE a.run_id = r.id) AS questions,
               (SELECT count(*) FROM answers a WHERE a.run_id = r.id AND a.status = 'ok') AS answered,
               (SELECT count(*) FROM answers a WHERE a.run_id = r.id AND a.status = 'error') AS failed,
               (SELECT count(*) FROM answers a WHERE a.run_id = r.id AND a.status = 'pending') AS pending
        FROM runs r ORDER BY r.id DESC""")
