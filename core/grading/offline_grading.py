"""Everything that grades a run without a model: retrieval evals and code coverage, the rule grader, the answers' claims and citations,
offline faithfulness and relevance.

`grade_offline(store, run_id)` is what `gradedesk grade-offline` and the demo call. Safe to run again: retrieval evals,
claims and offline scores are deterministic and recomputed (labels may have changed), rule grades are added only where
missing or stale (made against a gold answer that has been corrected since).
"""

from __future__ import annotations

from dataclasses import dataclass

from gradedesk.core.progress import Progress
from gradedesk.core.grading.claim_store import compute_run_claims
from gradedesk.core.grading.evidence_grades import grade_evidence
from gradedesk.core.grading.rules import RULES_ID, has_gold, rule_grade_run
from gradedesk.core.grading.scorers import OFFLINE_METHOD, score_offline_run
from gradedesk.core.store.answers import answers_of_run
from gradedesk.core.store.connection import Store
from gradedesk.core.store.gold import stale_grade_counts


@dataclass
class OfflineReport:
    run_id: int
    retrieval_scored: int
    rule_graded: int      # new rule grades (answers already rule-graded are kept, unless stale)
    offline_scored: int
    claims_split: int  # answers whose claims and citations were computed
    rule_grader: str = RULES_ID
    scorer_method: str = OFFLINE_METHOD
    stale_regraded: int = 0  # of rule_graded: grades made against an older gold answer, replaced
    no_gold: int = 0  # answers the rule grader skipped: no gold answer to compare with (e.g. imported traces)


def grade_offline(store: Store, run_id: int, progress: Progress | None = None) -> OfflineReport:
    stale = stale_grade_counts(store, run_id).get("rule", 0)
    retrieval, rules = grade_evidence(store, run_id, progress), rule_grade_run(store, run_id, progress)
    claims = compute_run_claims(store, run_id, progress)
    no_gold = sum(not has_gold(a["gold_answer"]) for a in answers_of_run(store, run_id))
    return OfflineReport(run_id, retrieval, rules, score_offline_run(store, run_id, progress), claims,
                         stale_regraded=stale, no_gold=no_gold)
