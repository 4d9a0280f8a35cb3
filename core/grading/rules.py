"""The offline rule-based answer grader: for when no judge endpoint is given. It is a rule grader, not an LLM judge.

It compares the answer with the gold answer and with the evidence (core/text/matching.py: code terms and content words,
rapidfuzz for near matches) and maps to the same four grades the judge and people use:

    coverage = share of the gold answer's key terms found in the answer; code terms (identifiers, file names, numbers)
               weigh CODE_WEIGHT, content words the rest (content words alone when the gold has no code terms)
    ungrounded = code terms of the answer found in none of evidence, gold answer and question (asserted from nowhere)

    answer empty or abstains ("I don't know", "insufficient evidence")     -> unsupported
    coverage >= FULL and nothing ungrounded                                 -> fully_correct
    coverage >= PARTIAL (or >= FULL with ungrounded terms)                  -> partially_correct
    coverage <  PARTIAL with ungrounded terms                               -> wrong (states things about the code that
                                                                               nothing supports)
    coverage <  PARTIAL otherwise                                           -> unsupported (vague or beside the question)

Failure label (every grade but fully_correct), first that applies: hallucination (ungrounded terms), missing_evidence
(no evidence at all), reasoning_error (the evidence holds the gold's key terms but the answer does not use them),
wrong_chunk (labelled expected files and none of them in the evidence), scope_confusion (the answer shares little with
the question), retrieval_miss (the evidence came back without what was needed).

Confidence is the distance of the coverage from the nearest grade boundary mapped to 0.5..1: a rule's certainty about
its own threshold, not a calibrated probability. Stored in auto_grades with grader_kind 'rule' and grader_model RULES_ID.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.evidence.stored import answer_evidence
from gradedesk.core.progress import Progress
from gradedesk.core.store.answers import answers_of_run
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.machine_grades import AutoGrade, fresh_rule_grades, replace_auto_grade
from gradedesk.core.text.matching import Haystack, abstains, code_terms, content_words
from gradedesk.core.text.prompt_layout import strip_citations

RULES_ID = "rules/1"
CODE_WEIGHT = 0.6
FULL = 0.75
PARTIAL = 0.4
SCOPE_MIN = 0.34        # below this share of the question's terms in the answer, it answers something else
REASONING_MARGIN = 0.2   # the evidence covers the gold this much better than the answer does
ABSTAIN_CONFIDENCE = 0.9  # an empty or declining answer is unsupported by definition; only its label is a guess


@dataclass
class RuleGrade:
    grade: str
    failure_label: str | None
    confidence: float
    reasoning: str
    coverage: float | None
    ungrounded: list[str]


def _coverage(gold: str, text: Haystack) -> tuple[float | None, list[str]]:
    """Weighted share of the gold's key terms found in `text`, and the missing terms."""
    codes, words = code_terms(gold), content_words(gold)
    missing = [t for t in codes + words if not text.has(t)]
    code_share, word_share = text.share(codes), text.share(words)
    if code_share is None:
        return word_share, missing
    if word_share is None:
        return code_share, missing
    # rounded so a share that is exactly on a boundary (2/3 * 0.6 = 0.4) is not pushed under it by float error
    return round(CODE_WEIGHT * code_share + (1 - CODE_WEIGHT) * word_share, 9), missing


def _confidence(coverage: float) -> float:
    distance = min(abs(coverage - FULL), abs(coverage - PARTIAL))
    return round(min(1.0, 0.5 + distance * 2), 3)


def _label(*, ungrounded: list[str], evidence: list[Evidence], evidence_cov: float | None, coverage: float,
           expected_files: list[str] | None, question_share: float | None) -> str:
    if ungrounded:
        return "hallucination"
    if not evidence:
        return "missing_evidence"
    if evidence_cov is not None and evidence_cov >= 0.5 and evidence_cov - coverage >= REASONING_MARGIN:
        return "reasoning_error"
    if expected_files and not {e.file_path for e in evidence} & set(expected_files):
        return "wrong_chunk"
    if question_share is not None and question_share < SCOPE_MIN:
        return "scope_confusion"
    return "retrieval_miss"


def has_gold(gold: str | None) -> bool:
    return bool(gold and (code_terms(gold) or content_words(gold)))


def grade_answer(question: str, gold: str, answer: str | None, evidence: list[Evidence],
                 expected_files: list[str] | None = None) -> RuleGrade:
    """Grade one answer by rules (pure; no store). The gold answer must have key terms (see has_gold)."""
    if not has_gold(gold):
        raise ValueError("the gold answer has no key terms to compare with")
    answer = (answer or "").strip()
    ev_text = Haystack("\n".join([e.text for e in evidence] + [e.file_path for e in evidence if e.file_path]
                                 + [e.symbol_name or "" for e in evidence]))
    evidence_cov, _ = _coverage(gold, ev_text)
    if not answer or abstains(answer):
        why = "the answer is empty" if not answer else "the answer declines to answer"
        label: str | None = _label(ungrounded=[], evidence=evidence, evidence_cov=evidence_cov, coverage=0.0,
                                   expected_files=expected_files, question_share=None)
        return RuleGrade("unsupported", label, ABSTAIN_CONFIDENCE, f"{why}; rule label: {label}", None, [])
    said = Haystack(answer)
    coverage, missing = _coverage(gold, said)
    assert coverage is not None  # the gold has key terms (has_gold), so there is a share of them
    backing = Haystack("\n".join([ev_text.text, gold, question]))
    ungrounded = [t for t in code_terms(strip_citations(answer)) if not backing.has(t)]
    question_share = said.share(code_terms(question) + content_words(question))
    if coverage >= FULL and not ungrounded:
        grade = "fully_correct"
    elif coverage >= PARTIAL:
        grade = "partially_correct"
    elif ungrounded:
        grade = "wrong"
    else:
        grade = "unsupported"
    label = None if grade == "fully_correct" else _label(
        ungrounded=ungrounded, evidence=evidence, evidence_cov=evidence_cov, coverage=coverage,
        expected_files=expected_files, question_share=question_share)
    parts = [f"{coverage:.0%} of the gold answer's key terms are in the answer"]
    if missing:
        parts.append("missing: " + ", ".join(missing[:6]) + (" ..." if len(missing) > 6 else ""))
    if ungrounded:
        parts.append("not in evidence, gold or question: " + ", ".join(ungrounded[:6]))
    if label:
        parts.append(f"rule label: {label}")
    return RuleGrade(grade, label, _confidence(coverage), "; ".join(parts), round(coverage, 4), ungrounded)


def rule_grade_run(store: Store, run_id: int, progress: Progress | None = None) -> int:
    """Rule-grade every answered answer of a run that has no rule grade yet, or only one made against an older gold
    answer (stale: core/store/gold.py), which is replaced (resume-safe); returns how many it graded."""
    now = utc_now()
    with store.transaction():  # the check and the inserts in one transaction: two graders never both insert
        done = fresh_rule_grades(store, run_id, RULES_ID)
        # without a gold answer there is nothing to grade against: those stay ungraded (the summary counts them)
        todo = [a for a in answers_of_run(store, run_id) if a["id"] not in done and has_gold(a["gold_answer"])]
        for n, a in enumerate(todo, start=1):
            expected = None if a["expected_files"] is None else json.loads(a["expected_files"])
            g = grade_answer(a["question"], a["gold_answer"] or "", a["text"], answer_evidence(store, a), expected)
            replace_auto_grade(store, AutoGrade(a["id"], "rule", RULES_ID, None, 0, g.grade, g.failure_label,
                                                g.confidence, g.reasoning, None, now))
            if progress:
                progress("rules", n, len(todo), 0)
    return len(todo)
