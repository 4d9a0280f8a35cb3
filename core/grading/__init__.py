"""Answers in, grades and scores out. The shared vocabulary (vocabulary.py: grades, failure labels, dimensions);
retrieval evals (retrieval_evals.py, which also writes and reads every stored score: store_scores, run_scores); the
offline rule grader (rules.py) and faithfulness/relevance scorers (scorers.py); the LLM judge (judge.py, with llm_io.py
for what graders send and get back) and its rubrics as editable files (rubric.py: format, version, prompt; rubrics.py:
stored versions and what --rubric names; the built-in one is judge-rubric.rubric); offline grading in one call
(offline.py); people's grades as append-only events (human_grades.py); an answer's claims and citations (claims.py:
split and resolved; claim_store.py: computed once and kept), people's marks on them (claim_marks.py) and what the marks
add up to per run (claim_figures.py)."""
