"""The headline of a run: what the store can say honestly about raw vs bundled answers, one row per method (raw, then
each bundle budget), side by side. `summary` and the agreement screen lead with it.

Offline (the demo) nothing has judged answer quality, so the figures that hold are retrieval and cost: definitions
present and code coverage (how much of the labelled symbols' code the evidence shows: core/grading/code_coverage.py),
file and symbol recall of each answer's evidence against the benchmark's expected files and symbols
(core/grading/retrieval_evals.py's scores), the mean prompt tokens, and each grader's pass rate (machine graders named as what they are, and people), each
with a seeded bootstrap interval (core/stats). `quality_note` says in one line what answer quality needs when no LLM
judge or imported grade is in the run.

Also here, because the summary's tables and the headline name and count grades alike: how a method and a grader are
named and ordered, and grade counts with their pass rate over usable grades.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from gradedesk.core.grading.code_coverage import METHOD as COVERAGE_SCORER
from gradedesk.core.grading.code_coverage import METRICS as COVERAGE_METRICS
from gradedesk.core.grading.retrieval_evals import METHOD as RETRIEVAL_SCORER
from gradedesk.core.grading.retrieval_evals import MethodLabel, method_label
from gradedesk.core.grading.vocabulary import GRADES, GRADING_ERROR, PASS_GRADE
from gradedesk.core.stats.measures import Estimate, proportion, texts_once
from gradedesk.core.stats.numeric import mean_estimate
from gradedesk.core.stats.records import FLAT, Record
from gradedesk.core.store.connection import Store
from gradedesk.core.store.answers import AnswerOutcome, answer_outcomes
from gradedesk.core.store.machine_grades import RunMachineGrade, machine_grade_rows, run_scores
from gradedesk.core.store.grades import PersonGradeRow, person_grade_rows
from gradedesk.core.store.run_records import run_row
from gradedesk.core.store.traces import side_labels

RECALLS = ("file_recall", "symbol_recall")
NO_SYMBOLS = "no expected symbol defined in the indexed files"
QUALITY_KINDS = frozenset({"judge", "imported"})  # graders whose grades say something about answer quality
QUALITY_NOTE = ("answer quality needs a model: `gradedesk run --base-url URL --model M`, "
                "then `gradedesk judge --base-url URL --model M`")
RAW_VS_BUNDLES = "Raw vs bundles"
# the answers are in (imported, or answered by a model): only a judge is missing
IMPORTED_QUALITY_NOTE = "answer quality needs a judge: `gradedesk judge --base-url URL --model M`"


def method_order(label: str) -> tuple[int, int]:
    return (0, 0) if label == "raw" else (1, int(label.split("@", 1)[1]))


@dataclass(frozen=True)
class MethodNames:
    """How a run's tables name its answer methods: raw and bundle@<budget>, or, for a run read from two-sided traces,
    each side's label (the desk's pane titles: a project or an attribute's value), side A first."""

    sides: dict[str, str] = field(default_factory=dict)  # answer method (raw, bundle) -> side label

    def label(self, method: str, budget: int) -> str:
        return self.sides.get(method) or method_label(method, budget)

    def order(self, label: str) -> tuple[int, int]:
        side = [m for m in ("raw", "bundle") if self.sides.get(m) == label]
        return (0 if side == ["raw"] else 1, 0) if side else method_order(label)

    @property
    def title(self) -> str:
        """What the rows compare: 'baseline vs rag-v2' (one side's label for a one-sided trace run)."""
        return " vs ".join(self.sides[m] for m in ("raw", "bundle") if m in self.sides) or RAW_VS_BUNDLES


def method_names(store: Store, run_id: int) -> MethodNames:
    return MethodNames(side_labels(store, run_id))


def grader_label(kind: str, model: str | None, rubric: str | None) -> str:
    if kind == "judge":
        return f"judge {model}" + (f" ({rubric})" if rubric else "")
    if kind == "rule":
        return f"rule grader {model}"
    return f"{kind} {model}" if model else kind


@dataclass
class GradeCounts(Record):
    """Grades of some answers by outcome; pass_rate is over usable grades (None when there is none)."""

    n: int
    by_grade: dict[str, int] = field(metadata=FLAT)  # every grade of GRADES, best first
    grading_error: int
    pass_rate: float | None

    @property
    def passed(self) -> int:
        return self.by_grade[PASS_GRADE]

    @property
    def usable(self) -> int:
        return self.n - self.grading_error


def grade_counts(rows: list[RunMachineGrade] | list[PersonGradeRow]) -> GradeCounts:
    c = Counter(GRADING_ERROR if r.failure_label == GRADING_ERROR else r.grade for r in rows)
    usable = len(rows) - c[GRADING_ERROR]
    return GradeCounts(len(rows), {g: c[g] for g in GRADES}, c[GRADING_ERROR],
                       c[PASS_GRADE] / usable if usable else None)


@dataclass
class PassRate(Record):
    grader: str  # 'rule grader rules/1', 'judge gpt-x (v2)', 'person alice'
    pass_rate: Estimate


@dataclass
class MethodHeadline(Record):
    """One answer method: recall of its evidence, its prompt tokens and each grader's pass rate, with intervals."""

    method: str  # raw | bundle@<budget> (a two-sided trace run: the side's label)
    answers: int  # answered (status ok)
    file_recall: Estimate
    symbol_recall: Estimate
    tokens_in: Estimate  # mean prompt tokens per answer
    pass_rates: list[PassRate]
    definitions_present: Estimate  # core/grading/code_coverage.py: what file recall cannot show
    code_coverage: Estimate


@dataclass
class Headline(Record):
    methods: list[MethodHeadline]
    graders: list[str]  # every grader with a pass rate, in column order
    quality_note: str | None  # None: an LLM judge or imported grades say something about answer quality
    title: str = RAW_VS_BUNDLES  # what the rows compare: a run read from two-sided traces names its sides


def grader_order(kind: str, model: str | None, rubric: str | None) -> tuple[int, str, str]:
    """Machine graders in every table: LLM judges first, then imported grades, then the rule grader."""
    return {"judge": 0, "imported": 1}.get(kind, 2), str(model), str(rubric)


def _grader_counts(machine: list[RunMachineGrade], people: list[PersonGradeRow],
                   label: MethodLabel) -> dict[str, dict[str, GradeCounts]]:
    """grader name -> method -> counts: machine graders first (their first repeat), then people."""
    by_machine: dict[str, dict[str, list[RunMachineGrade]]] = defaultdict(lambda: defaultdict(list))
    for m in sorted(machine, key=lambda r: grader_order(r.grader_kind, r.grader_model, r.rubric_version)):
        by_machine[grader_label(m.grader_kind, m.grader_model, m.rubric_version)][label(m.method, m.budget)].append(m)
    by_person: dict[str, dict[str, list[PersonGradeRow]]] = defaultdict(lambda: defaultdict(list))
    for p in people:
        by_person[f"person {p.grader}"][label(p.method, p.budget)].append(p)
    out = {g: {method: grade_counts(rows) for method, rows in methods.items()} for g, methods in by_machine.items()}
    out.update({g: {method: grade_counts(rows) for method, rows in methods.items()} for g, methods in by_person.items()})
    return out


def headline(store: Store, run_id: int, answers: Sequence[AnswerOutcome] | None = None,
             machine: list[RunMachineGrade] | None = None, names: MethodNames | None = None) -> Headline:
    """The run's headline (`answers`, `machine`, `names`: what the caller has read already). A run read from traces
    names each row by its side's label (the desk's pane titles), not raw or bundle@0."""
    answers = answer_outcomes(store, run_id) if answers is None else answers
    machine = machine_grade_rows(store, run_id) if machine is None else machine
    names = method_names(store, run_id) if names is None else names
    tokens: dict[str, list[float]] = defaultdict(list)
    answered: Counter[str] = Counter()
    for a in answers:
        if a.status == "ok":
            name = names.label(a.method, a.budget)
            answered[name] += 1
            if a.tokens_in is not None:
                tokens[name].append(a.tokens_in)
    recalls: dict[tuple[str, str], list[float]] = defaultdict(list)
    for s in run_scores(store, run_id, RECALLS + COVERAGE_METRICS):
        if s["method"] in (RETRIEVAL_SCORER, COVERAGE_SCORER) and s["value"] is not None:
            recalls[(names.label(s["answer_method"], s["budget"]), s["metric"])].append(s["value"])
    counts = _grader_counts(machine, person_grade_rows(store, run_id), names.label)
    rows = []
    for name in sorted(answered, key=names.order):
        rates = [PassRate(g, proportion(c[name].passed, c[name].usable, "no usable grade")
                          if name in c else Estimate(None, 0, reason="not graded"))
                 for g, c in counts.items()]
        rows.append(MethodHeadline(
            name, answered[name],
            mean_estimate(recalls[(name, "file_recall")], "no expected files"),
            mean_estimate(recalls[(name, "symbol_recall")], "no expected symbols"),
            mean_estimate(tokens[name], "no prompt token count"), rates,
            mean_estimate(recalls[(name, "definitions_present")], NO_SYMBOLS),
            mean_estimate(recalls[(name, "code_coverage")], NO_SYMBOLS)))
    quality = any(m.grader_kind in QUALITY_KINDS for m in machine)
    row = run_row(store, run_id)
    answered_by_model = row.source == "import" or row.provider != "offline-extractive"  # only a judge is missing
    note = None if quality else IMPORTED_QUALITY_NOTE if answered_by_model else QUALITY_NOTE
    return Headline(rows, list(counts), note, names.title)


def names_code(h: Headline) -> bool:
    """Does the run's benchmark name symbols the evidence can be measured on (a code coverage figure exists)?"""
    return any(m.code_coverage.value is not None for m in h.methods)


def headline_table(h: Headline) -> tuple[list[str], list[list[str]]]:
    """The headline as plain headers and cells (no markup): recall and pass rates to two decimals, tokens whole, each
    with its interval; down a column, a figure not defined for one reason says so once (core/stats texts_once).
    Where the benchmark names symbols, definitions present and code coverage come first, beside file recall, which
    breadth alone can raise (`summary` and the desk's agreement screen alike)."""
    code = names_code(h)
    headers = ["method", "n", *(["definitions present", "code coverage"] if code else []), "file recall",
               "symbol recall", "prompt tokens", *(f"pass: {g}" for g in h.graders)]
    columns = [*([[m.definitions_present for m in h.methods], [m.code_coverage for m in h.methods]] if code else []),
               [m.file_recall for m in h.methods], [m.symbol_recall for m in h.methods],
               [m.tokens_in for m in h.methods],
               *([m.pass_rates[i].pass_rate for m in h.methods] for i in range(len(h.graders)))]
    tokens_at = 4 if code else 2
    texts = [texts_once(column, 0 if n == tokens_at else 2) for n, column in enumerate(columns)]
    return headers, [[m.method, str(m.answers), *(column[i] for column in texts)] for i, m in enumerate(h.methods)]
