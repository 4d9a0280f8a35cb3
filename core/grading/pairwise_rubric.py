"""The judge's pairwise rubric as an editable text file: which of two answers to one question is better.

A pairwise rubric file is plain text like a grade rubric (core/grading/rubric_format.py), with its own sections:

    name: pairwise-rubric              the rubric's name (letters, digits, . _ -)
    based_on: pairwise-rubric/1a2b3c4d optional: the version it was made from

    [instructions]                     what the judge reads first (free text)
    [better]                           what makes one answer better than the other
    [tie]                              when neither is better

Its normal form, version (name plus 8 hex of the normal form's sha256) and storage (table rubrics, each version once)
work as for grade rubrics; `gradedesk rubric show --pairwise` prints the built-in one (pairwise-rubric.rubric), and
`gradedesk rubric show --pairwise pairwise-rubric-reference-free` its reference-free variant once a run used it. The
reply format (JSON: winner "1", "2" or "tie", and reasoning; REPLY below) is gradedesk's, not the rubric's:
core/grading/pairwise_judge.py adds it to each call and parses the reply.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache, cached_property
from importlib.resources import files

from gradedesk.core.errors import InputError
from gradedesk.core.grading.rubric_format import rubric_header, rubric_lines, section_texts, split_sections
from gradedesk.core.grading.rubric_lookup import RubricKind
from gradedesk.core.grading.rubric_format import REASONING_CHARS
from gradedesk.core.grading.reply_format import EXAMPLE_MARK, ReplyFormat
from gradedesk.core.providers.structured import Shape, object_schema, text

BUILTIN_FILE = "pairwise-rubric.rubric"  # package data: the built-in pairwise rubric, in its normal form
# its variant for pairs without a gold answer (runs read from an application's traces): a rubric of its own, with its
# own version, so the built-in rubric's version, and every verdict made under it, stays as it is
REFERENCE_FREE_FILE = "pairwise-rubric-reference-free.rubric"
SECTIONS = ("instructions", "better", "tie")

FORMAT_GUIDE = """\
# A gradedesk pairwise rubric: edit the words, keep the structure, then `gradedesk judge --pairwise --rubric FILE`.
# [instructions] is read first; [better] says what makes one answer better than the other, [tie] when neither is.
# Lines starting with '#' are comments. The version is the name plus a hash of the text: comments and blank lines do
# not change it."""

REPLY_SHAPE = Shape("pairwise_verdict", object_schema({"winner": {"type": "string", "enum": ["1", "2", "tie"]},
                                                       "reasoning": text(REASONING_CHARS, least=1)}))
# what the judge is told of its reply (core/grading/reply_format.py); the example is a tie, so a model that copies only
# its winner leans to neither side
REPLY = ReplyFormat(REPLY_SHAPE, (
    ("winner", '"1" when ANSWER 1 is better, "2" when ANSWER 2 is better, "tie" when neither is (a string)'),
    ("reasoning", "one or two sentences of your own naming the key facts of these answers that decided it"),
), {"winner": "tie", "reasoning": f"{EXAMPLE_MARK}, about other answers: both name open_store and neither says it "
                                  "sets WAL mode."})


@dataclass(frozen=True)
class PairwiseRubric:
    name: str
    instructions: str
    better: str
    tie: str
    based_on: str | None = None

    @cached_property
    def text(self) -> str:
        """The normal form: what is hashed, stored and shown."""
        head = [f"name: {self.name}"] + ([f"based_on: {self.based_on}"] if self.based_on else [])
        body = [line for key in SECTIONS for line in ("", f"[{key}]", getattr(self, key))]
        return "\n".join(head + body) + "\n"

    @property
    def version(self) -> str:
        return f"{self.name}/{hashlib.sha256(self.text.encode('utf-8')).hexdigest()[:8]}"

    @property
    def prompt(self) -> str:
        """The judge's system message: instructions, what is better, what is a tie; gradedesk's reply format (REPLY)
        is added per call (core/grading/reply_format.py)."""
        return "\n\n".join([self.instructions, "The better answer:\n" + self.better, "A tie:\n" + self.tie])


def parse_pairwise_rubric(text: str, source: str = "pairwise rubric") -> PairwiseRubric:
    """A pairwise rubric from its file text; InputError lists every problem as `source:line: field: problem`."""
    problems: list[str] = []
    lines = rubric_lines(text)
    header_lines, sections = split_sections(lines, source, problems, SECTIONS, {},
                                            ", ".join(f"[{s}]" for s in SECTIONS))
    name, based_on = rubric_header(header_lines, source, problems)
    texts = section_texts(sections, [(s, None) for s in SECTIONS], len(lines), source, problems,
                          "the sections " + ", ".join(f"[{s}]" for s in SECTIONS))
    if problems:
        raise InputError(problems)
    return PairwiseRubric(name, texts[("instructions", None)], texts[("better", None)], texts[("tie", None)],
                          based_on)


@cache
def builtin_pairwise_rubric(file: str = BUILTIN_FILE) -> PairwiseRubric:
    """A pairwise rubric gradedesk ships: the built-in one (core/grading/pairwise-rubric.rubric), or its
    reference-free variant (REFERENCE_FREE_FILE)."""
    text = files(__package__).joinpath(file).read_text(encoding="utf-8")
    return parse_pairwise_rubric(text, file)


PAIRWISE: RubricKind[PairwiseRubric] = RubricKind("pairwise", parse_pairwise_rubric, builtin_pairwise_rubric)


def shown_pairwise(rubric: PairwiseRubric) -> str:
    """What `gradedesk rubric show --pairwise` prints: the version and the format guide as comments, then the text."""
    return f"# {rubric.version}\n{FORMAT_GUIDE}\n{rubric.text}"
