"""Grades of people and machines in, honest figures out (typed records whose `to_dict()` is the JSON the CLI prints).
The statistics themselves are pure and live in core/stats; the rows come from core/store (reports.py, samples.py,
alignments.py). Here, in the grades' terms:

- the report of one run (report.py: `AgreementReport`): the grade pairs it compares and whom they are compared with
  (grade_pairs.py), pass rates per method and the judge-corrected ones (pass_rates.py), people's switches,
  self-consistency and alpha units (people.py), the samples each figure rests on (samples.py), judge rubric versions
  side by side (rubric_versions.py), the machine grader's bias probes (machine_bias.py), people's claim-level
  faithfulness against the faithfulness scorers (faithfulness.py), the pass-rate curve by budget for people and the
  machine grader (budget_curve.py) and which answer is better (pairwise.py: the pairwise judge's position bias, ties,
  consistency and stability, its agreement with people's preferences; pairwise_win_rates.py: bundled over raw from
  people, the judge and prediction-powered); the same as plain tables (tables.py, pairwise_tables.py);
- judge alignment (judge_alignment.py: `AlignmentReport`): people's grades split by question (split.py), examples from
  the train side (examples.py), base vs new rubric on the test side with paired intervals; and the rubric history with
  each version's test agreement (rubric_history.py).
"""
