"""Examples for a rubric, chosen from the train side of a split (never from test: the caller passes only train).

By default two per grade level present in train; with `k`, k in all, dealt to the grade levels in turn (best grade
first). Within a grade level the answers where the base rubric's judge disagreed with the people come first (the
farther apart on the grade scale, the sooner), then the rest in a seeded shuffle; a question that already gave an
example gives another only when no other question is left, so the examples cover as many questions as they can.
Each becomes an Example with the question, the gold answer, an excerpt of the answer, the people's grade and label,
their note as the explanation, and its source (benchmark:question_id, run, answer).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence, Set

from gradedesk.core.agreement.split import GradedItem, excerpt
from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.grading.rubric_format import Example
from gradedesk.core.grading.vocabulary import FAILURE_LABELS, GRADES, PASS_GRADE, grade_rank

PER_GRADE = 2


def _ordered(items: list[GradedItem], base: dict[int, str], rng: random.Random) -> list[GradedItem]:
    """Disagreements first (farthest first), the rest shuffled; the shuffle comes first so ties are seeded too."""
    items = sorted(items, key=lambda i: i.answer_id)
    rng.shuffle(items)

    def distance(i: GradedItem) -> int:
        judged = base.get(i.answer_id)
        return abs(grade_rank(judged) - grade_rank(i.grade)) if judged else 0

    return sorted(items, key=lambda i: -distance(i))


def choose_examples(train: Sequence[GradedItem], base: dict[int, str], seed: int, k: int | None = None,
                    exclude: Set[int] = frozenset()) -> list[GradedItem]:
    """Up to k train items (default two per grade level present) to become examples.

    base: the base rubric judge's grade of each train answer it graded usably (answer_id -> grade); exclude: answer
    ids that are already examples of the base rubric.
    """
    rng = random.Random(seed)
    by_grade: dict[str, list[GradedItem]] = defaultdict(list)
    for i in train:
        if i.answer_id not in exclude:
            by_grade[i.grade].append(i)
    queues = {g: _ordered(by_grade[g], base, rng) for g in GRADES if by_grade[g]}
    cap = PER_GRADE if k is None else len(train)
    wanted = sum(min(cap, len(q)) for q in queues.values()) if k is None else k
    chosen: list[GradedItem] = []
    used_questions: set[int] = set()
    taken: Counter[str] = Counter()
    while len(chosen) < wanted:
        before = len(chosen)
        for g, queue in queues.items():  # GRADES order: the best grade first
            if not queue or len(chosen) >= wanted or taken[g] >= cap:
                continue
            pick = next((i for i in queue if i.question_pk not in used_questions), queue[0])
            queue.remove(pick)
            chosen.append(pick)
            used_questions.add(pick.question_pk)
            taken[g] += 1
        if len(chosen) == before:  # every grade level is used up
            break
    return chosen


def to_example(item: GradedItem, run_id: int) -> Example:
    label = item.label if item.grade != PASS_GRADE and item.label in FAILURE_LABELS else None
    source = (f"{item.question_key} (run {run_id}, answer {item.answer_id}, "
              f"{method_label(item.method, item.budget)}, graded by {', '.join(item.graders)})")
    return Example(question=item.question, answer=excerpt(item.answer), grade=item.grade, gold=item.gold,
                   label=label, why=item.note, source=source)
