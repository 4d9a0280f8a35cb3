"""Pure statistics: counts and scores in, estimates with seeded bootstrap intervals out. No store, no grading
vocabulary: the classes come in as arguments (the grades, best first, from the callers in core/agreement).

- measures.py: `Estimate` (a value with its interval, or None and a reason), percentile and score intervals (Wilson's
  at a design's effective n), and the agreement measures of confusion matrices (percent agreement, Cohen's and
  weighted kappa, Gwet's AC1, per-class precision and recall, TPR/TNR) and proportions.
- krippendorff.py: Krippendorff's ordinal alpha among several people.
- rogan_gladen.py: Rogan-Gladen corrected pass rates and their paired difference.
- paired_graders.py: two graders against the same people on the same items, and their difference (paired bootstrap).
- numeric.py: agreement between two numeric scores of the same items (Pearson r, mean and mean absolute difference).
- weighted.py: inverse-probability weighted (Hajek) estimates for sampled items, Kish effective n, power-tuned PPI
  means (pass rates, paired differences, win rates) with what the judge bought, clustered means.
- bias.py: bias probes of a grader against people (grade inflation; agreement by answer-length tercile).
- records.py: `Record`, the base of typed figures and their JSON form.
"""
