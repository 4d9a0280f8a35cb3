"""The formats exchange reads and writes, each list defined once and named for what it lists. The commands' --format
choices import them from here: a module with no imports, so `gradedesk --help` stays fast."""

from __future__ import annotations

# a run as JSONL (`gradedesk export`): gradedesk's run log (runlog_export.py), the evidence-bundles lesson's comparison
# log and RAGAS rows (export_formats.py)
EXPORT_FORMATS = ("gradedesk", "comparison", "ragas")

# a run's scores as records (`gradedesk export-scores`): gradedesk's (scores.py), Langfuse's score API
# (scores_langfuse.py), Phoenix span annotations (scores_phoenix.py)
SCORE_FORMATS = ("gradedesk", "langfuse", "phoenix")

# a run's people's grades written back into the eval tool's own file its answers came from (`export-scores --format
# F --out FILE`): a copy of the Inspect log with score edits (inspect_log.py), a copy of the promptfoo results file with
# human ratings (promptfoo_results.py)
FILE_SCORE_FORMATS = ("inspect", "promptfoo")

# the shapes of run log `gradedesk import` reads (runlog_shapes.py), each with what the command calls it
RUNLOG_SHAPES = {"gradedesk": "gradedesk run log", "comparison": "bundle-comparison log", "harness": "harness log",
                 "ragas": "RAGAS rows"}
