"""Rubric files: the normal form and its version, every mistake as file:line, the prompt made from a rubric, and
rubric versions in a real store."""

from __future__ import annotations

import re

import pytest

from gradedesk.core.errors import InputError, UserError
from gradedesk.core.grading.rubric_format import BUILTIN_FILE, REPLY, Example, builtin_rubric, parse_rubric, shown
from gradedesk.core.grading.rubric_lookup import find_version, read_rubric_file, resolve_rubric, store_rubric, stored_rubric
from gradedesk.core.grading.vocabulary import FAILURE_LABELS, GRADES
from gradedesk.core.store.connection import open_store
from gradedesk.core.grading.reply_format import FORMAT_HEAD, with_format
from tests.fixtures import REPO_ROOT

EXAMPLE = """
[example]
question: What journal mode does open_store set?
gold: WAL.
answer:
  It sets WAL.

    (indented and after a blank line)
grade: partially_correct
label: retrieval_miss
why: The busy timeout is missing.
source: bench:q1 (run 1, answer 2, raw, graded by alice)
"""


def builtin_text() -> str:
    return (REPO_ROOT / "core" / "grading" / BUILTIN_FILE).read_text(encoding="utf-8")


def test_the_builtin_file_is_in_normal_form_and_defines_the_whole_vocabulary():
    r = builtin_rubric()
    assert r.text == builtin_text()
    assert list(r.grades) == list(GRADES) and list(r.labels) == list(FAILURE_LABELS)
    assert re.fullmatch(r"judge-rubric/[0-9a-f]{8}", r.version)
    assert parse_rubric(shown(r)).version == r.version  # what `rubric show` prints reads back as the same rubric


def test_the_version_follows_the_words_not_the_layout():
    text = builtin_text()
    same = ("# my notes\n" + text.replace("[grade wrong]", "# a comment\n[grade wrong]")
            .replace("\n\n[label hallucination]", "\n\n\n\n[label hallucination]   ")
            .replace("than the one asked.", "than the one asked.   "))
    # sections in another order mean the same rubric
    blocks = same.split("\n\n[")
    reordered = "\n\n[".join([blocks[0]] + blocks[:0:-1])
    assert parse_rubric(same).version == builtin_rubric().version
    assert parse_rubric(reordered).version == builtin_rubric().version
    changed = text.replace("pick the lower one", "pick the higher one")
    assert parse_rubric(changed).version != builtin_rubric().version
    renamed = text.replace("name: judge-rubric", "name: strict")
    assert parse_rubric(renamed).version.startswith("strict/")


def test_examples_read_back_exactly_and_reach_the_prompt():
    r = parse_rubric(builtin_text() + EXAMPLE)
    (e,) = r.examples
    assert e == Example(question="What journal mode does open_store set?", gold="WAL.",
                        answer="It sets WAL.\n\n  (indented and after a blank line)", grade="partially_correct",
                        label="retrieval_miss", why="The busy timeout is missing.",
                        source="bench:q1 (run 1, answer 2, raw, graded by alice)")
    assert e.question_key == "bench:q1"
    assert parse_rubric(r.text) == r and r.version != builtin_rubric().version
    prompt = r.prompt
    assert "Example 1: grade partially_correct, failure label retrieval_miss" in prompt
    assert "BEGIN ANSWER\nIt sets WAL.\n\n  (indented and after a blank line)\nEND ANSWER" in prompt
    assert "BEGIN WHY\nThe busy timeout is missing.\nEND WHY" in prompt
    assert "bench:q1" not in prompt  # the source is for people and the split, not the judge
    sent = with_format([{"role": "system", "content": prompt}], REPLY, True)[0]["content"]
    assert sent.index("Example 1") < sent.index(FORMAT_HEAD)  # the reply format, added per call, comes last
    assert "Example 1:" not in builtin_rubric().prompt


def test_with_examples_records_the_base_and_is_in_normal_form():
    base = builtin_rubric()
    made = base.with_examples([Example("Q?", "  an answer  ", "wrong", label="hallucination")], base.version)
    assert made.based_on == base.version and made.examples[-1].answer == "an answer"
    assert parse_rubric(made.text) == made


def bad(text: str, name: str = "my.rubric") -> list[str]:
    with pytest.raises(InputError) as info:
        parse_rubric(text, name)
    return info.value.problems


def line_of(text: str, needle: str) -> int:
    return text.split("\n").index(needle) + 1


def test_unknown_grades_and_labels_in_examples_are_refused_with_file_and_line():
    text = builtin_text() + EXAMPLE.replace("grade: partially_correct", "grade: mostly_right") + \
        EXAMPLE.replace("label: retrieval_miss", "label: typo") + \
        EXAMPLE.replace("grade: partially_correct", "grade: fully_correct")
    problems = bad(text)
    assert problems[0] == (f"my.rubric:{line_of(text, 'grade: mostly_right')}: example 1.grade: 'mostly_right' is not "
                           f"a grade; the grades are {', '.join(GRADES)}")
    assert problems[1].startswith(f"my.rubric:{line_of(text, 'label: typo')}: example 2.label: 'typo' is not a "
                                  "failure label")
    lines = text.split("\n")
    third = [n for n, line in enumerate(lines, start=1) if line == "label: retrieval_miss"][-1]
    assert problems[2] == f"my.rubric:{third}: example 3.label: a fully_correct example has no failure label"
    assert len(problems) == 3


def test_every_structural_mistake_is_named():
    text = builtin_text()
    broken = (text.replace("[grade wrong]", "[grade terrible]").replace("[label wrong_chunk]", "[lable wrong_chunk]")
              .replace("name: judge-rubric", "name: judge rubric\ncolour: blue")
              + "\n[instructions]\nagain\n"
              + "\n[example]\n  floating\nquestion: Q?\nquestion: twice\nanswer: a\nextra: x\nnot a field\n")
    problems = bad(broken)
    n = lambda needle: line_of(broken, needle)  # noqa: E731
    expected = [
        f"my.rubric:{n('[grade terrible]')}: [grade terrible]: unknown grade",
        f"my.rubric:{n('[lable wrong_chunk]')}: [lable wrong_chunk]: unknown section",
        f"my.rubric:{n('colour: blue')}: header.colour: unknown field",
        "my.rubric:1: name: 'judge rubric' must be letters",
        f"my.rubric:{n('  floating')}: example 1: an indented line continues a field, but no field is open",
        f"my.rubric:{n('question: twice')}: example 1.question: given twice (first on line {n('question: Q?')})",
        f"my.rubric:{n('extra: x')}: example 1.extra: unknown field",
        f"my.rubric:{n('not a field')}: example 1: expected 'field: value'",
        f"my.rubric:{n('[example]')}: example 1.grade: missing",
        f"my.rubric:{broken.split(chr(10)).index('again')}: [instructions]: given twice (first on line "
        f"{n('[instructions]')})",
        f"my.rubric:{len(broken.split(chr(10)))}: [grade wrong]: missing",
        f"my.rubric:{len(broken.split(chr(10)))}: [label wrong_chunk]: missing",
    ]
    for want in expected:
        assert any(p.startswith(want) for p in problems), (want, problems)
    assert len(problems) == len(expected)
    empty = bad("")
    assert empty[0] == "my.rubric:1: name: missing; a rubric starts with 'name: NAME'"
    assert [p.split(": ")[1] for p in empty[1:]] == (["[instructions]"] + [f"[grade {g}]" for g in GRADES]
                                                     + [f"[label {lab}]" for lab in FAILURE_LABELS])


def test_store_once_and_find_by_name_prefix_or_version(tmp_path):
    store = open_store(tmp_path / "s.db")
    base = builtin_rubric()
    other = base.with_examples([Example("Q?", "A.", "wrong", label="hallucination")], base.version)
    assert store_rubric(store, base) == store_rubric(store, base) == base.version
    store_rubric(store, other)
    assert store._scalar("SELECT count(*) FROM rubrics") == 2
    assert stored_rubric(store, other.version) == other
    assert find_version(store, "judge-rubric") == other.version  # a name: its newest version
    assert find_version(store, other.version[:-2]) == other.version
    assert find_version(store, "nothing") is None
    with pytest.raises(UserError, match="names 2 versions"):
        find_version(store, "judge-rubric/")
    # a prompt stored by an older gradedesk is kept, shown, never judged with
    with store.transaction():
        store._db["rubrics"].insert({"version": "judge-rubric/1", "text": "You are grading...", "created_at": "x"})
    with pytest.raises(UserError, match="older gradedesk as a prompt"):
        stored_rubric(store, "judge-rubric/1")


def test_resolve_a_file_a_version_or_the_builtin(tmp_path):
    store = open_store(tmp_path / "s.db")
    path = tmp_path / "mine.rubric"
    path.write_text(builtin_text().replace("judge-rubric", "mine") + EXAMPLE, encoding="utf-8")
    mine = resolve_rubric(store, str(path))
    assert mine.name == "mine" and len(mine.examples) == 1
    assert resolve_rubric(store, None) == resolve_rubric(store, "builtin") == builtin_rubric()
    store_rubric(store, mine)
    assert resolve_rubric(store, "mine") == mine
    with pytest.raises(UserError, match=r"--rubric: nope: no such file nor a rubric version in"):
        resolve_rubric(store, "nope")
    with pytest.raises(UserError, match="not a file"):
        resolve_rubric(store, str(tmp_path))
    path.write_bytes(b"name: x\n\xff\n")
    with pytest.raises(InputError, match=r"mine.rubric:2: \(encoding\): not UTF-8"):
        read_rubric_file(path)
