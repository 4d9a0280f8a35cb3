"""The desk's data. In: a store and a run (and a grader's name). Out: the queue of items the desk shows (queue.py:
filters, keyset pages, progress, recheck samples, where each grader stopped), one item loaded whole (item.py), the
blind-first rule of what a person may see (blind.py), the "most useful next" draws (sampler.py), the desk session
with the one store call behind each desk action (session/, a module per job), and claim mode's: an answer's claims
with where each points, marks and undo (claim_desk.py); flagging an item for fixing the benchmark (flags.py); a
team's work: who grades which items, with overlap (assignment.py: the plan; team.py: storing it and each person's
progress) and the names people give (grader_names.py). No SQL here: the desk's queries are core/store/desk.py's, the
machine verdict the desk uses is defined once in core/store/machine_grades.py (verdict_id: the newest, or the judge's
under a chosen rubric)."""
