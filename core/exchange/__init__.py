"""Run logs and grades in and out of a store. In: a JSONL run log made elsewhere (gradedesk's own, the evidence-bundles
lesson's comparison and harness logs, RAGAS rows), every line checked (runlog_fields, runlog_shapes) and stored as a
new run with its grades and metrics, all or nothing (runlog_import); another store's human grades (merge). Out: a run
as gradedesk's run log (runlog_export), as the lesson's comparison log or RAGAS rows (export_formats), and its grades,
claim marks and scorers' metrics as score records: gradedesk's, Langfuse's or Phoenix's (scores, scores_langfuse,
scores_phoenix). The names of these formats and shapes are listed once, in formats; the tables are read and written
through core/store (answers, runs, questions, grades, machine_grades, merge)."""
