"""A benchmark in, answered runs out: questions (questions.py: JSONL checked line by line), the versioned prompts of raw
and bundled answers (prompts.py), the runner that answers every question raw and bundled per budget, resumable
(runner.py), run summaries as typed records (summary.py) and run comparisons (compare.py)."""
