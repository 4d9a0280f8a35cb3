"""The store: one SQLite file, one schema (store.db-schema.sql), and the only code that runs SQL.

In: a path (`connection.open_store`), then typed calls: `def name(store: Store, ...) -> record`. Out: frozen
dataclasses, typed tuples or primitives (a hot query the desk or `agree` runs over a million rows may return cursor
tuples; its docstring says so). The rest of gradedesk holds a Store (its path, `transaction()`, `close()`) and never
its connection. Each table has one owner module below; a query that joins several families lives in reports.py
(the figures) or merge.py (another store). These modules import only each other, core/errors, core/config and
core/jsonl.

connection: open, upgrade and close a store (WAL, busy timeout, one transaction per logical write); the schema.
questions: questions.
run_records: runs, prompts (resolve a RUN argument, a run's row and desk settings).
answers: answers.
bundles: bundles, bundle_snippets.
grades: human_grades, claim_marks (views current_human_grades, current_claim_marks).
preferences: human_preferences.
machine_grades: auto_grades, answer_scores, answer_claims (view machine_grades); the machine verdict's SQL.
rubrics: rubrics.
pairwise: pairwise_verdicts (the judge's replies on which of two answers is better).
flags: item_flags (people's flags on items whose benchmark entry needs fixing).
samples: sample_draws.
assignments: assignments (who grades which items of a run; append-only assign and withdraw rows).
adjudications: adjudications (a lead's decisions where assigned people disagree; append-only set and undo rows).
desk: desk_state, and the desk's hot queries over a run's answers (queue, progress, sampler usefulness, one item).
alignments: alignments, alignment_items.
index: repos, files, chunks, symbol_refs, search_index.
vectors: chunk_vectors, repo_embeddings.
traces: answer_traces (where an answer read from an application's traces came from).
gold: a question's gold hash (the SQL function the schema's trigger calls) and which grades are stale against it.
reports: no table; the read-only joins behind `agree`, judge alignment and `summary`.
kept_replies: no table; model replies the store could not take, kept in a file beside it until a command takes them in.
merge: no table of its own; `gradedesk merge` reads another store and copies its people's events into this one.
run_lock: no table; the lock file beside the store that keeps two judges off one run.
"""
