"""The runs and prompts tables. Runs as the rest of gradedesk names them: resolve a RUN argument, list runs, a run's
row (RunRow) and the desk's view of its settings (RunInfo); a run made (`add_run`, found again by its configuration's
key with `run_by_key`) or taken back whole (`delete_run`); the versioned answer prompts a run records.

Every command that takes RUN and the desk read runs through here, not through the benchmark runner that makes them.
A run's answers are core/store/answers.py's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.store.bundles import delete_bundles
from gradedesk.core.store.connection import Store, StoreError
from gradedesk.core.store.rubrics import newest_rubric_version


def resolve_run(store: Store, run: str | int | None) -> int:
    """A run id from an id, "latest" (the newest run) or None (also the newest); one clear error otherwise."""
    if run is None or str(run).strip().lower() == "latest":
        run_id = store._scalar("SELECT max(id) FROM runs")
        if run_id is None:
            raise StoreError(f"{store.path}: no runs yet; make one with `gradedesk run`, `gradedesk demo` "
                             f"or `gradedesk import`")
        return int(run_id)
    try:
        run_id = int(run)
    except (TypeError, ValueError):
        raise UserError(f"RUN: {run!r} is not a run id or 'latest'") from None
    if store._scalar("SELECT 1 FROM runs WHERE id = ?", (run_id,)) is None:
        raise UserError(f"RUN: no run {run_id} in {store.path} (see `gradedesk runs`)")
    return run_id


@dataclass(frozen=True, slots=True)
class RunRow:
    """A run as stored; the JSON columns (budgets, prompt_versions, config) read back."""

    id: int
    created_at: str
    source: str  # run | import
    label: str | None
    provider: str
    model: str | None
    endpoint_host: str | None
    repo_id: int | None
    repo_commit: str | None
    benchmark: str | None
    budgets: list[int]
    primary_budget: int | None
    raw_k: int | None
    tokenizer: str | None
    compiler_version: str | None
    prompt_versions: dict[str, str]
    order_seed: int
    config: dict[str, Any]  # everything else that made the run: its key, files, settings


_RUN_COLUMNS = ", ".join(f.name for f in fields(RunRow))


def run_row(store: Store, run_id: int) -> RunRow:
    rows = store._query(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,))
    if not rows:
        raise UserError(f"--run: no run {run_id} in {store.path}")
    r = rows[0]
    return RunRow(**{**r, "budgets": json.loads(r["budgets"] or "[]"),
                     "prompt_versions": json.loads(r["prompt_versions"] or "{}"),
                     "config": json.loads(r["config"] or "{}")})


@dataclass(frozen=True)
class RunInfo:
    """The desk's view of a run. The desk shows raw beside the bundled answer at `bundle_budget`: the run's largest
    (`primary_budget`) unless the person chose another of its `budgets` (`showing`); the queue, the sampler, the item,
    the filters and progress follow it. Reports across the run read the run itself (run_row), not this."""

    id: int
    label: str | None
    provider: str
    model: str | None
    benchmark: str | None
    primary_budget: int  # the run's largest: the bundled answer shown beside raw unless another is chosen
    order_seed: int
    rubric_version: str | None  # newest rubric in the store: stamped on each human grade
    budgets: tuple[int, ...] = ()  # every budget the run has bundled answers at, ascending
    bundle_budget: int = 0  # the budget whose bundled answer the desk shows beside raw (run_info: primary_budget)

    @property
    def title(self) -> str:
        parts = [f"run {self.id}"]
        if self.label:
            parts.append(self.label)
        parts.append(self.model or self.provider)
        return " · ".join(parts)

    def showing(self, budget: int | None) -> RunInfo:
        """This run with the bundled answer at `budget` beside raw (None: the run's largest); a budget the run has no
        bundled answers at is one clear error naming the ones it has."""
        if budget is None:
            return replace(self, bundle_budget=self.primary_budget)
        if budget not in self.budgets:
            have = ", ".join(f"{b:,}" for b in self.budgets) or "none (no bundled answers)"
            raise UserError(f"--budget: run {self.id} has no bundled answers at {budget:,} tokens; its budgets: {have}")
        return replace(self, bundle_budget=budget)


def run_info(store: Store, run_id: int) -> RunInfo:
    r = run_row(store, run_id)
    budget = r.primary_budget
    if budget is None:  # older or imported runs: the largest budget answered
        budget = store._scalar("SELECT max(budget) FROM answers WHERE run_id = ? AND method = 'bundle'", (run_id,)) or 0
    budgets = set(r.budgets) or {int(b) for (b,) in store._conn.execute(  # imports may not list them: what they answered
        "SELECT DISTINCT budget FROM answers WHERE run_id = ? AND method = 'bundle'", (run_id,))}
    if budget:
        budgets.add(int(budget))
    return RunInfo(r.id, r.label, r.provider, r.model, r.benchmark, int(budget), int(r.order_seed),
                   newest_rubric_version(store), tuple(sorted(budgets)), int(budget))


@dataclass(frozen=True, slots=True)
class NewRun:
    """A run to store: what `gradedesk run` or an import made it from."""

    source: str  # run | import
    created_at: str
    label: str | None
    provider: str
    model: str | None
    benchmark: str
    budgets: list[int]
    primary_budget: int
    order_seed: int  # seeds the desk's left/right shuffle
    config: dict[str, Any]
    endpoint_host: str | None = None
    repo_id: int | None = None
    repo_commit: str | None = None
    raw_k: int | None = None
    tokenizer: str | None = None
    compiler_version: str | None = None
    prompt_versions: dict[str, str] = field(default_factory=dict)


def add_run(store: Store, run: NewRun) -> int:
    """Store a new run; its id."""
    row = {"created_at": run.created_at, "source": run.source, "label": run.label, "provider": run.provider,
           "model": run.model, "endpoint_host": run.endpoint_host, "repo_id": run.repo_id,
           "repo_commit": run.repo_commit, "benchmark": run.benchmark, "budgets": json.dumps(run.budgets),
           "primary_budget": run.primary_budget, "raw_k": run.raw_k, "tokenizer": run.tokenizer,
           "compiler_version": run.compiler_version, "prompt_versions": json.dumps(run.prompt_versions),
           "order_seed": run.order_seed, "config": json.dumps(run.config, ensure_ascii=False)}
    cursor = store._conn.execute(f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                                tuple(row.values()))
    return int(cursor.lastrowid or 0)


def run_by_key(store: Store, source: str, key: str) -> int | None:
    """The newest run of `source` (run, import) whose configuration has this key: the same command or file again."""
    run_id = store._scalar("SELECT id FROM runs WHERE source = ? AND json_extract(config, '$.key') = ? "
                          "ORDER BY id DESC LIMIT 1", (source, key))
    return None if run_id is None else int(run_id)


def delete_run(store: Store, run_id: int) -> None:
    """Take a run back whole: its answers go with it (ON DELETE CASCADE), and so do their bundles."""
    with store.transaction():
        bundles = [r[0] for r in store._conn.execute(
            "SELECT bundle_id FROM answers WHERE run_id = ? AND bundle_id IS NOT NULL", (run_id,))]
        store._conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        delete_bundles(store, bundles)


def list_runs(store: Store) -> list[dict[str, Any]]:
    """Every run, newest first, with its answer counts by status (column -> value: `gradedesk runs --json` prints
    them as they are)."""
    return store._query("""
        SELECT r.id, r.created_at, r.source, r.label, r.provider, r.model, r.endpoint_host, r.benchmark,
               r.budgets, r.primary_budget,
               (SELECT count(DISTINCT a.question_pk) FROM answers a WHERE a.run_id = r.id) AS questions,
               (SELECT count(*) FROM answers a WHERE a.run_id = r.id AND a.status = 'ok') AS answered,
               (SELECT count(*) FROM answers a WHERE a.run_id = r.id AND a.status = 'error') AS failed,
               (SELECT count(*) FROM answers a WHERE a.run_id = r.id AND a.status = 'pending') AS pending
        FROM runs r ORDER BY r.id DESC""")


# prompts ---------------------------------------------------------------------------------------------------------------
def prompt_text(store: Store, name: str, version: str) -> str | None:
    """The stored text of a prompt version, or None when it is not stored yet."""
    text = store._scalar("SELECT text FROM prompts WHERE name = ? AND version = ?", (name, version))
    return None if text is None else str(text)


def add_prompt(store: Store, name: str, version: str, text: str, created_at: str) -> None:
    store._conn.execute("INSERT INTO prompts (name, version, text, created_at) VALUES (?, ?, ?, ?)",
                       (name, version, text, created_at))


def record_config(store: Store, run_id: int, name: str, key: str, value: Any) -> None:
    """Set `config[name][key]` of a run (what a later command found out about it: an endpoint's probes, a sample)."""
    with store.transaction():
        config = run_row(store, run_id).config
        config.setdefault(name, {})[key] = value
        store._conn.execute("UPDATE runs SET config = ? WHERE id = ?", (json.dumps(config, ensure_ascii=False), run_id))


JUDGE_SAMPLES = "judge_samples"  # the run's config entry of `judge --sample`s: what each judge was asked about


def record_judge_sample(store: Store, run_id: int, role: str, model: str, size: int, population: int,
                        seed: int | None) -> None:
    """That `role` ("judge", "pairwise") with `model` was asked about a seeded simple random sample of `size` of the
    run's `population` questions (seed None: about every question)."""
    key = f"{role} {model} " + ("every question" if seed is None else f"sample {size} seed {seed}")
    record_config(store, run_id, JUDGE_SAMPLES, key, {"role": role, "model": model, "size": size,
                                                      "population": population, "seed": seed,
                                                      "inclusion_probability": size / population})


def judge_sample_probability(store: Store, run_id: int, role: str, model: str) -> float:
    """The probability that `model` as `role` was asked about a given question of the run: 1 when it was never
    sampled, or asked about every question once; else the union of its recorded samples (each a simple random
    sample drawn independently of the others: 1 - the product of 1 - n/N)."""
    samples = [v for v in run_row(store, run_id).config.get(JUDGE_SAMPLES, {}).values()
               if isinstance(v, dict) and v.get("role") == role and v.get("model") == model]
    if not samples:
        return 1.0
    missed = 1.0
    for sample in samples:
        missed *= 1.0 - float(sample["inclusion_probability"])
    return 1.0 - missed


def sample_probability(store: Store, run_id: int) -> float:
    """The inclusion probability of each of the run's questions in the benchmark (`gradedesk run --sample`: a simple
    random sample of n of its N questions, n / N); 1 when the run asked every question."""
    sample = run_row(store, run_id).config.get("sample")
    return float(sample["inclusion_probability"]) if isinstance(sample, dict) else 1.0
