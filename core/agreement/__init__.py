"""Grades of people and machines in, honest figures out: agreement statistics with bootstrap intervals (statistics.py:
kappa, AC1, alpha, TPR/TNR, corrected pass rates), the report of one run (report.py; the pairs it compares in
pairs.py, pass rates per method and the judge-corrected ones in pass_rates.py, people's switches, self-consistency and
alpha units in people.py), the same as plain tables (tables.py), weighted estimates for items the desk's sampler drew
(weighted.py) and on which sample each figure rests (samples.py). Judge alignment (align.py): people's grades split by
question (split.py), examples from the train side (examples.py), base vs new rubric on the test side with paired
intervals (paired.py) and bias probes (bias.py), kept in the store with the rubric history (alignments.py). People's
claim-level faithfulness against the faithfulness scorers (faithfulness.py, with the numeric-score statistics in
numeric.py)."""
