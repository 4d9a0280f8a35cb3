"""Run logs and grades in and out of a store. In: run logs made elsewhere, JSONL, every line checked (runlog_lines)
and stored as a new run, all or nothing (runlog_import), and another store's human grades (merge). Out: a run as
gradedesk's run log, one line per question with answers, evidence, bundle and grades (runlog_export), and a run's
grades as score records (scores)."""
