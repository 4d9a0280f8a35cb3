"""Answers in, grades and scores out. The shared vocabulary (vocabulary.py: grades, failure labels, dimensions);
retrieval evals (retrieval_evals.py) and how much of the answering code the evidence shows (code_coverage.py); the offline rule grader (rules.py) and faithfulness/relevance scorers
(scorers.py); the LLM judge (judge.py, with llm_io.py for what graders send and get back; judge_consistency.py: how often its repeats agree) and its rubrics as editable
files (rubric_format.py: format, version, prompt; rubric_lookup.py: what --rubric names, each version stored once;
the built-in one is judge-rubric.rubric); which of two answers is better (pairwise_judge.py: raw vs bundled in both
orders, under its own rubric file, pairwise_rubric.py and pairwise-rubric.rubric; pairwise_verdicts.py: what the
replies add up to, a verdict only where both orders agree); offline grading in one call (offline_grading.py, what grade-offline runs);
people's grades as append-only events (human_grades.py); an answer's claims and citations (claims.py: split and
resolved; claim_store.py: computed once and kept), people's marks on them (claim_marks.py) and what the marks add up
to per run (claim_figures.py); people's grades and preferences by budget (budget_figures.py). No SQL here: the tables
are core/store's (grades.py, machine_grades.py, rubrics.py, pairwise.py)."""
