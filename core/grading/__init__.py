"""Answers in, grades and scores out. The shared vocabulary (vocabulary.py: grades, failure labels, dimensions);
retrieval evals (retrieval_evals.py); the offline rule grader (rules.py) and faithfulness/relevance scorers
(scorers.py); the LLM judge (judge.py, with llm_io.py for what graders send and get back) and its rubrics as editable
files (rubric.py: format, version, prompt; rubrics.py: stored versions and what --rubric names; the built-in one is
judge-rubric.rubric); offline grading in one call (offline.py); and people's grades as append-only events
(human_grades.py)."""
