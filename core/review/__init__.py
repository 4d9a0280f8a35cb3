"""The desk's data. In: a store and a run (and a grader's name). Out: the queue of items the desk shows (queue.py:
filters, keyset pages, progress, recheck samples, where each grader stopped), one item loaded whole (item.py), the
one definition of the machine verdict the desk uses (verdict.py: the newest, or the judge's under a chosen rubric), the
blind-first rule of what a person may see (blind.py), the one store call behind each desk action (session.py), and
claim mode's: an answer's claims with where each points, marks and undo (claim_desk.py)."""
