"""People's grades for judge alignment, split by question into train and test, and the rule that keeps test out of
every example.

- The items are a run's answers with a gold answer and a current grade by people: one grader's (`grader`), or, by
  default, every person's where all who graded the answer gave the same grade (answers they disagree on are left out
  and counted).
- The split is by question: all answers of a question fall on one side, so the judge is never tested on a question
  whose other answer it saw as an example. It is seeded and stratified by grade: each question is filed under the
  grade most of its answers got (the lower one on a tie), and each grade's questions are shuffled and the test share
  of them, by largest remainder so the total is round(share x questions), goes to test.
- Questions that a base rubric's examples came from are kept in train (`pinned_questions`), so iterating (a new
  rubric as the next base, a new seed) cannot put an earlier example's question into test. An example belongs to a
  question when its source names the question (benchmark:question_id), when its question text is the question's, or
  when its answer excerpt is one of the question's answers.
- `leaks` applies the same rule to a finished set of examples and the test items; align refuses to judge when it
  finds anything (it would be a bug: the split already prevents it).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass

from gradedesk.core.errors import UserError
from gradedesk.core.grading.rubric_format import Example
from gradedesk.core.grading.vocabulary import GRADES, grade_rank
from gradedesk.core.store.connection import Store
from gradedesk.core.store.reports import PersonGradedAnswer, people_graded_answers
from gradedesk.core.text.hashing import normalize_text

EXCERPT_CHARS = 800
CUT_MARK = " [...]"


@dataclass(frozen=True)
class GradedItem:
    """An answer the people graded, with what an example of it needs."""

    answer_id: int
    question_pk: int
    question_key: str  # benchmark:question_id, the same in every store and run
    question: str
    gold: str
    answer: str
    method: str
    budget: int
    grade: str
    label: str | None
    note: str | None
    graders: tuple[str, ...]


def excerpt(text: str) -> str:
    """The part of an answer an example shows: the first EXCERPT_CHARS characters, marked when cut."""
    text = normalize_text(text or "")
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS].rstrip() + CUT_MARK


def graded_items(store: Store, run_id: int, grader: str | None = None) -> tuple[list[GradedItem], dict[str, int]]:
    """The run's person-graded answers with a gold answer, and how many were left out and why."""
    by_answer: dict[int, list[PersonGradedAnswer]] = defaultdict(list)
    for r in people_graded_answers(store, run_id, grader):
        by_answer[r.answer_id].append(r)
    items, left_out = [], {"people_disagree": 0, "no_gold_answer": 0}
    for answer_id, grades in by_answer.items():
        first = grades[0]
        if not (first.gold_answer or "").strip():
            left_out["no_gold_answer"] += 1
            continue
        if len({g.grade for g in grades}) > 1:
            left_out["people_disagree"] += 1
            continue
        labels = {g.failure_label for g in grades}
        notes = [f"{g.grader}: {g.note}" if len(grades) > 1 else g.note for g in grades if g.note]
        items.append(GradedItem(
            answer_id, first.question_pk, f"{first.benchmark}:{first.question_id}", first.question,
            first.gold_answer or "", first.text or "", first.method, first.budget, first.grade,
            labels.pop() if len(labels) == 1 else None, " / ".join(notes) or None,
            tuple(g.grader for g in grades)))
    return items, left_out


# -- which question an example belongs to -------------------------------------------------------------------------------

def _text_mark(text: str) -> str:
    return " ".join(text.split()).casefold()


def example_marks(e: Example) -> set[tuple[str, str]]:
    """What ties an example to a question: its source's question key, its question text, its answer text."""
    marks = {("question", _text_mark(e.question))}
    if e.question_key is not None:
        marks.add(("key", e.question_key))
    if e.answer.strip():
        marks.add(("answer", _text_mark(e.answer)))
    return marks


def item_marks(item: GradedItem) -> set[tuple[str, str]]:
    return {("key", item.question_key), ("question", _text_mark(item.question)),
            ("answer", _text_mark(excerpt(item.answer)))}


def shows_answer(example: Example, item: GradedItem) -> bool:
    """Whether the example's answer is (an excerpt of) the item's answer."""
    return ("answer", _text_mark(excerpt(item.answer))) in example_marks(example)


def pinned_questions(items: Iterable[GradedItem], examples: Sequence[Example]) -> set[int]:
    """The questions (question_pk) of `items` that any of `examples` belongs to: they must stay in train."""
    marks = set().union(*(example_marks(e) for e in examples))
    return {i.question_pk for i in items if item_marks(i) & marks}


def leaks(examples: Sequence[Example], test: Iterable[GradedItem]) -> list[str]:
    """Every (example, test question) pair where the example belongs to a test question, as text; [] when none."""
    marks = [example_marks(e) for e in examples]
    found = []
    for item in test:
        mine = item_marks(item)
        found += [f"example {n} belongs to test question {item.question_key} (answer {item.answer_id})"
                  for n, m in enumerate(marks, start=1) if m & mine]
    return found


# -- the split ----------------------------------------------------------------------------------------------------------

@dataclass
class Split:
    train: list[GradedItem]
    test: list[GradedItem]
    pinned: list[str]  # question keys kept in train for the base rubric's examples
    seed: int
    test_share: float

    def questions(self, side: str) -> set[int]:
        return {i.question_pk for i in (self.train if side == "train" else self.test)}


def question_grade(grades: Sequence[str]) -> str:
    """The grade a question is filed under: most of its answers' grades, the lower one on a tie."""
    counts = Counter(grades)
    return max(counts, key=lambda g: (counts[g], grade_rank(g)))


def _quotas(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Largest-remainder shares of `total` proportional to `sizes` (ties broken in GRADES order)."""
    n = sum(sizes.values())
    exact = {g: total * s / n for g, s in sizes.items()}
    quotas = {g: int(x) for g, x in exact.items()}
    rest = sorted(sizes, key=lambda g: (-(exact[g] - quotas[g]), grade_rank(g)))
    for g in rest[: total - sum(quotas.values())]:
        quotas[g] += 1
    return quotas


def split_by_question(items: Sequence[GradedItem], test_share: float, seed: int,
                      pinned: Set[int] = frozenset()) -> Split:
    """Train and test by question, seeded and stratified by grade; `pinned` questions always go to train."""
    if not 0 < test_share < 1:
        raise UserError(f"--test-share: must be between 0 and 1 (exclusive), got {test_share}")
    by_question: dict[int, list[GradedItem]] = defaultdict(list)
    for i in items:
        by_question[i.question_pk].append(i)
    if len(by_question) < 2:
        raise UserError(f"align needs people's grades of at least 2 questions (with a gold answer) to split into "
                        f"train and test; found {len(by_question)}")
    free = sorted((q for q in by_question if q not in pinned), key=lambda q: by_question[q][0].question_key)
    if not free:
        raise UserError("every graded question is one the base rubric's examples came from; grade answers to other "
                        "questions, or start from a rubric without those examples")
    target = min(max(1, round(test_share * len(by_question))), len(free), len(by_question) - 1)
    strata: dict[str, list[int]] = defaultdict(list)
    for q in free:
        strata[question_grade([i.grade for i in by_question[q]])].append(q)
    rng = random.Random(seed)
    test_questions: set[int] = set()
    quotas = _quotas({g: len(qs) for g, qs in strata.items()}, target)
    for g in GRADES:
        questions = strata.get(g, [])
        rng.shuffle(questions)
        test_questions.update(questions[: quotas.get(g, 0)])
    train = [i for i in items if i.question_pk not in test_questions]
    test = [i for i in items if i.question_pk in test_questions]
    keys = sorted({by_question[q][0].question_key for q in pinned if q in by_question})
    return Split(train, test, keys, seed, test_share)
