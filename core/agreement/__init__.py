"""Grades of people and machines in, honest figures out: agreement statistics with bootstrap intervals (statistics.py:
kappa, AC1, alpha, TPR/TNR, corrected pass rates), the report of one run (report.py), the same as plain tables
(tables.py), and which ungraded item narrows the intervals most (priority.py)."""
