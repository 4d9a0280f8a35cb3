"""People's grades for alignment, the split by question, and the proof that no test item (nor any answer to a test
question) ever becomes an example, whatever the seed, the share and the rubric it starts from."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gradedesk.core.agreement.examples import PER_GRADE, choose_examples, to_example
from gradedesk.core.agreement.split import (
    EXCERPT_CHARS, GradedItem, excerpt, graded_items, leaks, pinned_questions, question_grade, split_by_question,
)
from gradedesk.core.errors import UserError
from gradedesk.core.grading.rubric_format import Example, builtin_rubric
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import add_human
from tests.fixtures.alignment import build_graded_run
from tests.fixtures.grading import add_question, add_raw_answer

FC, PC, UN, WR = GRADES


@pytest.fixture(scope="module")
def items(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("split") / "s.db") as store:
        run, _ = build_graded_run(store, 30)
        found, left_out = graded_items(store, run)
    assert left_out == {"people_disagree": 0, "no_gold_answer": 0}
    return found


def test_graded_items_take_one_person_or_where_people_agree(tmp_path):
    store = open_store(tmp_path / "s.db")
    run, grades = build_graded_run(store, 3)
    a, b, c = list(grades)[:3]
    add_human(store, a, "bob", grades[a], note="same")            # agrees with alice
    add_human(store, b, "bob", WR if grades[b] != WR else FC)      # disagrees
    nogold = add_raw_answer(store, run, add_question(store, "x", "No gold?", ""), "text", [])
    add_human(store, nogold, "alice", FC)
    found, left_out = graded_items(store, run)
    assert left_out == {"people_disagree": 1, "no_gold_answer": 1}
    by_id = {i.answer_id: i for i in found}
    assert b not in by_id and nogold not in by_id and len(found) == 5
    assert by_id[a].graders == ("alice", "bob") and by_id[a].note.endswith("bob: same")
    assert by_id[c].graders == ("alice",) and by_id[c].question_key == "bench:q1"
    alone, left_out = graded_items(store, run, "bob")
    assert {i.answer_id for i in alone} == {a, b} and left_out["people_disagree"] == 0


def test_the_split_is_by_question_seeded_and_stratified(items):
    split = split_by_question(items, 0.5, seed=1)
    assert split.questions("train").isdisjoint(split.questions("test"))
    assert len(split.train) + len(split.test) == len(items)
    assert len(split.questions("test")) == 15  # round(0.5 x 30 questions)
    assert split_by_question(items, 0.5, seed=1).test == split.test
    assert split_by_question(items, 0.5, seed=2).test != split.test
    # each grade's questions are split by the share, give or take one (largest remainder)
    by_q: dict[int, list[str]] = {}
    for i in items:
        by_q.setdefault(i.question_pk, []).append(i.grade)
    strata = Counter(question_grade(g) for g in by_q.values())
    tested = Counter(question_grade(by_q[q]) for q in split.questions("test"))
    for grade, n in strata.items():
        assert abs(tested[grade] - n * 0.5) <= 1
    assert question_grade([FC, WR]) == WR and question_grade([FC, FC, WR]) == FC


def test_bad_splits_are_refused(items):
    with pytest.raises(UserError, match="--test-share: must be between 0 and 1"):
        split_by_question(items, 1.0, 1)
    one = [i for i in items if i.question_pk == items[0].question_pk]
    with pytest.raises(UserError, match="at least 2 questions"):
        split_by_question(one, 0.5, 1)
    with pytest.raises(UserError, match="every graded question is one the base rubric's examples came from"):
        split_by_question(items, 0.5, 1, pinned={i.question_pk for i in items})


def _base_verdicts(train: list[GradedItem], seed: int) -> dict[int, str]:
    rng = random.Random(seed)
    return {i.answer_id: rng.choice(GRADES) for i in train}


@pytest.mark.parametrize("share", [0.2, 0.5, 0.8])
def test_no_test_question_ever_gives_an_example(items, share):
    """Over many seeds, and starting from rubrics whose examples came from earlier splits (the loop iterated)."""
    for seed in range(100):
        base = builtin_rubric()
        for round_ in range(3):  # three rounds of align, each from the last one's rubric, each with its own seed
            s = seed * 7 + round_
            split = split_by_question(items, share, s, pinned_questions(items, base.examples))
            test_questions = split.questions("test")
            chosen = choose_examples(split.train, _base_verdicts(split.train, s), s, k=None if s % 2 else 9)
            assert chosen and all(i.question_pk not in test_questions for i in chosen)
            base = base.with_examples([to_example(i, 1) for i in chosen], base.version)
            assert leaks(base.examples, split.test) == []
            # every example, old or new, is an answer to a train question
            train_answers = {excerpt(i.answer) for i in split.train}
            assert all(e.question_key in {i.question_key for i in split.train} for e in base.examples)
            assert all(e.answer in train_answers for e in base.examples[-len(chosen):])


def test_leaks_are_found_by_source_question_or_answer(items):
    split = split_by_question(items, 0.5, 3)
    t = split.test[0]
    from_test = to_example(t, 1)
    assert leaks([from_test], split.test)
    # hand-written examples without a source still belong to a test question by its text or by its answer
    by_question = Example(question=f"  {t.question.upper()} ", answer="something else", grade=WR)
    by_answer = Example(question="another question?", answer=excerpt(t.answer), grade=t.grade)
    assert leaks([by_question], [t]) and leaks([by_answer], [t])
    assert pinned_questions(items, [by_question]) == {t.question_pk}
    unrelated = Example(question="What is the meaning of life?", answer="42", grade=WR, source="other:q9 (x)")
    assert leaks([unrelated], split.test) == [] and pinned_questions(items, [unrelated]) == set()


def test_examples_prefer_disagreements_and_cover_questions(items):
    split = split_by_question(items, 0.5, 4)
    train = split.train
    # the base judge disagreed on exactly these answers, one per grade level present
    disagreed = {g: next(i for i in train if i.grade == g) for g in GRADES}
    base = {i.answer_id: i.grade for i in train}
    base.update({i.answer_id: WR if g != WR else FC for g, i in disagreed.items()})
    chosen = choose_examples(train, base, seed=9)
    counts = Counter(i.grade for i in chosen)
    assert counts == {g: PER_GRADE for g in GRADES}
    for g, i in disagreed.items():
        assert [c for c in chosen if c.grade == g][0] == i  # first within its grade level
    assert len({i.question_pk for i in chosen}) == len(chosen)  # a question gives one example while others remain
    assert [i.grade for i in choose_examples(train, base, seed=9, k=6)] == [FC, PC, UN, WR, FC, PC]
    assert choose_examples(train, base, seed=9, exclude={i.answer_id for i in train}) == []


def test_an_example_shows_an_excerpt_and_where_it_came_from(items):
    item = next(i for i in items if i.grade == FC)
    long = GradedItem(**{**item.__dict__, "answer": "word " * 400, "label": "hallucination"})
    e = to_example(long, 5)
    assert len(e.answer) <= EXCERPT_CHARS + 6 and e.answer.endswith("[...]")
    assert e.label is None  # a fully_correct example has no failure label
    assert e.source == f"{item.question_key} (run 5, answer {item.answer_id}, {item.method}" + \
        ("" if item.method == "raw" else f"@{item.budget}") + ", graded by alice)"
    assert e.why == item.note and e.gold == item.gold
