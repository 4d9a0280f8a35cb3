"""Code coverage: how much of the code that answers a question the evidence actually shows.

File recall rewards breadth (one line of a file finds the file); this measure cannot be fooled by it. For a question
labelled with expected_symbols and expected_files:

- each symbol's definitions in the expected files are found with `ast` (functions, classes, methods as `Class.method`,
  and names assigned at module or class level); a bare label matches a method or attribute of that name, as
  `symbol_matches` says;
- a definition's answer lines are its first ANSWER_LINES code lines: decorators, signature and statements, never a
  docstring (nor any other string statement), a comment line or a blank line;
- a line counts only when its text (stripped) is shown: in an evidence block of that file whose stated range holds the
  line, and among the lines the block's text really carries (a cut that keeps a range but not the line does not count);
- a symbol's best-covered definition counts; it is present when at least half of its answer lines count.

code coverage = counted answer lines / answer lines over the question's symbols; definitions present = share of its
symbols present. A symbol with no definition in the expected files is not measured; a question with none measured has
no figure (None), not a zero.

The evidence is read as shown: `shown_in_context` reads a prompt's context (core/text/prompt_layout.py owns its layout),
`shown_in_evidence` reads stored evidence records (their text is what the prompt carried). The source of a file comes
from a callable (a checkout on disk, or the index's chunks), so benchmarks and stored answers use this one definition.
"""

from __future__ import annotations

import ast
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.evidence.stored import answer_evidence
from gradedesk.core.grading.retrieval_evals import labels, norm_path, symbol_matches
from gradedesk.core.progress import Progress
from gradedesk.core.retrieval.baseline import file_texts
from gradedesk.core.store.answers import answers_of_run
from gradedesk.core.store.connection import Store
from gradedesk.core.store.machine_grades import Score, store_scores
from gradedesk.core.store.run_records import run_row
from gradedesk.core.text.prompt_layout import context_blocks

METHOD = "code-lines"  # the scorer's name on stored scores
METRICS = ("definitions_present", "code_coverage")
ANSWER_LINES = 40  # a definition's first code lines: what an answer about it needs to see
PRESENT_SHARE = 0.5  # a definition is present when at least this share of its answer lines is shown

Source = Callable[[str], str | None]  # a file's text by its repository path; None when it is not there


@dataclass(frozen=True)
class Shown:
    """One evidence block as shown: its file, its stated lines (None: not stated) and the stripped lines it carries."""

    path: str
    start_line: int | None
    end_line: int | None
    lines: frozenset[str]

    def shows(self, line: int, text: str) -> bool:
        if self.start_line is not None and self.end_line is not None \
                and not self.start_line <= line <= self.end_line:
            return False
        return text in self.lines


def _shown(path: str, start: int | None, end: int | None, text: str) -> Shown:
    return Shown(norm_path(path), start, end, frozenset(s for line in text.split("\n") if (s := line.strip())))


def shown_in_context(context: str) -> list[Shown]:
    """The blocks of a prompt's context (a bundle's `[Evidence i]` blocks, raw `File:` blocks, either layout)."""
    return [_shown(h.path, h.start_line, h.end_line, text) for h, text in context_blocks(context)]


def shown_in_evidence(items: Iterable[Evidence]) -> list[Shown]:
    """Stored evidence records: each one's text is the block text its prompt carried."""
    return [_shown(e.file_path, e.start_line, e.end_line, e.text) for e in items if e.file_path]


@dataclass(frozen=True)
class Definition:
    qualname: str  # `Class.method` for a method
    lines: tuple[tuple[int, str], ...]  # its answer lines: (line number, stripped text)


def _string_lines(tree: ast.AST) -> set[int]:
    """Lines of the string statements of a module: docstrings, and any bare string used as a comment."""
    out: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
            out.update(range(n.lineno, (n.end_lineno or n.lineno) + 1))
    return out


def _answer_lines(node: ast.stmt, lines: list[str], skip: set[int]) -> tuple[tuple[int, str], ...]:
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])
    out = []
    for n in range(first, (node.end_lineno or node.lineno) + 1):
        text = lines[n - 1].strip() if n <= len(lines) else ""
        if n in skip or not text or text.startswith("#"):
            continue
        out.append((n, text))
        if len(out) == ANSWER_LINES:
            break
    return tuple(out)


def _assigned(node: ast.stmt) -> list[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
        if isinstance(node, ast.AnnAssign) else []
    return [t.id for t in targets if isinstance(t, ast.Name)]


@lru_cache(maxsize=256)  # a benchmark measures many contexts against the same few files
def definitions(source: str) -> tuple[Definition, ...]:
    """Every definition of a Python source (none when it does not parse): functions, classes, methods, and names
    assigned at module or class level."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # as ast numbers lines
    strings = _string_lines(tree)
    out: list[Definition] = []

    def visit(body: list[ast.stmt], prefix: str, in_function: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + node.name
                out.append(Definition(name, _answer_lines(node, lines, strings)))
                visit(node.body, name + ".", isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
            elif not in_function:
                out.extend(Definition(prefix + name, _answer_lines(node, lines, strings)) for name in _assigned(node))
                if isinstance(node, (ast.If, ast.Try, ast.With)):  # `if TYPE_CHECKING:`, `try: import ...`
                    for part in ("body", "orelse", "finalbody"):
                        visit(getattr(node, part, []), prefix, in_function)

    visit(tree.body, "", False)
    return tuple(d for d in out if d.lines)


@dataclass(frozen=True)
class SymbolCoverage:
    """One expected symbol measured: its best-covered definition (file, first line) and the answer lines counted."""

    symbol: str
    file_path: str
    first_line: int
    answer_lines: int
    counted: int

    @property
    def share(self) -> float:
        return self.counted / self.answer_lines

    @property
    def present(self) -> bool:
        return self.share >= PRESENT_SHARE


@dataclass(frozen=True)
class CodeCoverage:
    """One question's evidence measured: every symbol that has a definition in the expected files."""

    symbols: tuple[SymbolCoverage, ...]

    @property
    def coverage(self) -> float:
        return sum(s.counted for s in self.symbols) / sum(s.answer_lines for s in self.symbols)

    @property
    def definitions_present(self) -> float:
        return sum(s.present for s in self.symbols) / len(self.symbols)


def _counted(definition: Definition, path: str, shown: list[Shown]) -> int:
    blocks = [s for s in shown if s.path == path]
    return sum(any(b.shows(n, text) for b in blocks) for n, text in definition.lines)


def code_coverage(expected_files: Iterable[str] | None, expected_symbols: Iterable[str] | None,
                  shown: list[Shown], source: Source) -> CodeCoverage | None:
    """The question's code coverage by the shown evidence; None when no expected symbol is defined in the expected
    files (nothing to measure)."""
    files = [norm_path(f) for f in dict.fromkeys(expected_files or [])]
    texts = {f: text for f in files if (text := source(f)) is not None}
    measured = []
    for symbol in dict.fromkeys(expected_symbols or []):
        best: SymbolCoverage | None = None
        for path, text in texts.items():
            for d in definitions(text):
                if not symbol_matches(d.qualname, symbol):
                    continue
                got = SymbolCoverage(symbol, path, d.lines[0][0], len(d.lines), _counted(d, path, shown))
                if best is None or got.share > best.share:
                    best = got
        if best is not None:
            measured.append(best)
    return CodeCoverage(tuple(measured)) if measured else None


@dataclass(frozen=True)
class CoverageMeans:
    """Means over the questions that have a figure: code coverage, definitions present, and how many were measured."""

    coverage: float | None
    definitions_present: float | None
    questions: int


def coverage_means(measured: Iterable[CodeCoverage | None]) -> CoverageMeans:
    got = [m for m in measured if m is not None]
    if not got:
        return CoverageMeans(None, None, 0)
    return CoverageMeans(statistics.mean(m.coverage for m in got),
                         statistics.mean(m.definitions_present for m in got), len(got))


# stored answers ------------------------------------------------------------------------------------------------------
def stored_source(store: Store, repo_id: int | None) -> Source:
    """A file's text as the run's repository was indexed (its chunks; lines no chunk covers were blank), read once;
    None for every file when the run names no indexed repository."""
    texts: dict[str, str | None] = {}

    def read(path: str) -> str | None:
        if path not in texts:
            lines = file_texts(store, repo_id, [path]).get(path) if repo_id is not None else None
            texts[path] = None if lines is None else "\n".join(lines)
        return texts[path]

    return read


def coverage_scores(items: list[Evidence], expected_files: list[str] | None, expected_symbols: list[str] | None,
                    source: Source) -> list[Score]:
    """Definitions present and code coverage of one answer's evidence (None, with the reason, when not defined)."""
    if not expected_symbols or not expected_files:
        why = {"unlabelled": True, "reason": "question has no expected_symbols and expected_files labels"}
        return [Score(m, None, why) for m in METRICS]
    got = code_coverage(expected_files, expected_symbols, shown_in_evidence(items), source)
    if got is None:
        why = {"reason": "no labelled symbol is defined in the indexed expected files"}
        return [Score(m, None, why) for m in METRICS]
    detail = {"symbols": [{"symbol": s.symbol, "file": s.file_path, "line": s.first_line,
                           "answer_lines": s.answer_lines, "counted": s.counted} for s in got.symbols]}
    return [Score("definitions_present", got.definitions_present, detail), Score("code_coverage", got.coverage, detail)]


def grade_code_coverage(store: Store, run_id: int, progress: Progress | None = None) -> int:
    """Score every answer of a run on the code its evidence shows, against its repository as indexed; returns how many
    answers were scored. Deterministic and recomputed (labels and the index may have changed), idempotent by upsert."""
    answers = answers_of_run(store, run_id)
    source = stored_source(store, run_row(store, run_id).repo_id)
    with store.transaction():
        for n, a in enumerate(answers, start=1):
            scores = coverage_scores(answer_evidence(store, a), labels(a["expected_files"]),
                                     labels(a["expected_symbols"]), source)
            store_scores(store, a["id"], scores, METHOD)
            if progress:
                progress("code coverage", n, len(answers), 0)
    return len(answers)
