"""One hostile corpus (markup, CSI, OSC 0/8/52, C1 controls, bidi overrides and isolates, NUL) put into every place
outside text enters (repository files, questions, run logs, traces, labels, model names, bundles), then every
subcommand found in the parser is run on it: no control or bidi character from the corpus reaches stdout or stderr.
A subcommand without a case here fails the test; the desk's commands are run by the Pilot tests of tui/."""

from __future__ import annotations

import argparse
import io
import json
import re

import pytest

from gradedesk.core.cli import build_parser, command_modules
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.flags import add_flag
from gradedesk.core.text.terminal import json_safe, terminal_safe
from gradedesk.tui import commands
from tests.fixtures.cli import cli
from tests.fixtures.langfuse_export import trace, write_export
from tests.fixtures.lesson_files import graded_harness_line, harness_line, write_lines
from tests.fixtures.shop import QUESTIONS, make_repo

CORPUS = ("[bold red]markup[/] \x1b[2J\x1b[H \x1b]0;TITLE\x07 \x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\ "
          "\x1b]52;c;cHduZWQ=\x07 \x9b31m \x9d0;C1\x9c \u202eevil\u202c \u2066iso\u2069 nul\x00 bell\x07 cr\r")
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def test_terminal_safe_shows_controls_and_bidi_and_leaves_other_text_alone():
    assert terminal_safe("a\x1b[2Jb\tc\nd\x9b\u202e") == "a\\x1b[2Jb\tc\nd\\x9b\\u202e"
    kept = "שלום עולם مرحبا 👩‍👩‍👧 你好 é [bold]x[/bold]"
    assert terminal_safe(kept) == kept
    assert FORBIDDEN.search(terminal_safe(CORPUS)) is None
    value = {"a": CORPUS}
    assert json.loads(json_safe(json.dumps(value, ensure_ascii=False))) == value


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A store whose every outside field carries the corpus: an indexed repository with a hostile file, a run of
    hostile questions, an imported graded run log (hostile judge model, label, notes) and two-sided hostile traces."""
    import contextlib

    tmp = tmp_path_factory.mktemp("hostile")
    repo = make_repo(tmp / "repo")
    text = CORPUS.replace("\x00", "")  # a file with NUL is binary: never indexed
    (repo / "shop" / "evil.py").write_text(f'"""{text}"""\n\ndef apply_discount_evil():\n    """{text}"""\n'
                                          "    return 1\n", encoding="utf-8")
    questions = tmp / "q.jsonl"
    rows = [dict(q, question=q["question"] + " " + CORPUS, expected_files=[*q.get("expected_files", []), f"shop/{CORPUS}.py"]) for q in QUESTIONS]
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    log = write_lines(tmp / "log.jsonl", [graded_harness_line(
        harness_line(f"h{i}", f"What is {i}? {CORPUS}", CORPUS, f"It is {i}. {CORPUS}", [f"{CORPUS}.py"]),
        "partially_correct", None, CORPUS, 0.5, f"judge-{CORPUS}") for i in range(3)])
    traces = write_export(tmp / "traces.json", [
        {**trace(f"t{i}{side}", f"g{i}{side}", f"question {i} {CORPUS}", f"answer {CORPUS}",
                 [{"page_content": CORPUS, "metadata": {"source": CORPUS}}], {"side": f"{side}-{CORPUS}"}),
         "projectId": f"proj-{CORPUS}"} for i in range(2) for side in "ab"])
    bundle = tmp / "bundle.json"
    promptfoo = tmp / "results.json"  # a promptfoo results file (version 3) whose every text is the corpus
    promptfoo.write_text(json.dumps({"evalId": f"eval-{CORPUS}", "config": {"description": CORPUS}, "results": {
        "version": 3, "timestamp": CORPUS, "results": [
            {"id": f"r{i}", "testIdx": 0, "promptIdx": i, "provider": {"id": f"p{i}", "label": f"p{i}-{CORPUS}"},
             "prompt": {"raw": CORPUS, "label": CORPUS}, "vars": {"question": CORPUS},
             "testCase": {"vars": {"question": CORPUS}, "assert": [{"type": "contains", "value": CORPUS}]},
             "response": {"output": CORPUS if i else None}, "error": CORPUS,
             "gradingResult": {"pass": False, "score": 0, "reason": CORPUS, "componentResults": [
                 {"pass": False, "score": 0, "reason": CORPUS, "assertion": {"type": CORPUS}}]}}
            for i in range(2)]}}), encoding="utf-8")  # result 0 has no output: skipped, its error said
    db = tmp / "s.db"
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        from gradedesk.tui.cli import main

        assert main(["index", str(repo), "--store", str(db)]) == 0
        assert main(["run", "--questions", str(questions), "--budgets", "500", "--store", str(db)]) == 0, \
            sink.getvalue()
        assert main(["import", str(log), "--store", str(db), "--label", CORPUS]) == 0
        assert main(["import-traces", "--langfuse", str(traces), "--side-by", "side", "--store", str(db)]) == 0
        sink.seek(0), sink.truncate()
        assert main(["ask", "apply_discount_evil", "--json", "--store", str(db)]) == 0
    bundle.write_text(json.dumps({**json.loads(sink.getvalue()), "tokenizer": CORPUS}), encoding="utf-8")
    with open_store(db) as store:
        add_flag(store, 1, 1, f"ann{CORPUS}", "ambiguous", CORPUS, judge_visible=True)
    return {"db": db, "repo": repo, "questions": questions, "log": log, "traces": traces, "bundle": bundle,
            "promptfoo": promptfoo, "tmp": tmp}


# every subcommand: its argv (with {db}, {repo}, ... filled in), or why it is run elsewhere
CASES: dict[str, list[str] | str] = {
    "demo": "opens the desk: the desk's Pilot tests read every screen",
    "explore": "opens the desk: the desk's Pilot tests read every screen",
    "grade": "opens the desk: the desk's Pilot tests read every screen",
    "serve": "serves the desk: the desk's Pilot tests read every screen",
    "index": ["index", "{repo}", "--store", "{db}"],
    "retrieve": ["retrieve", f"evil {CORPUS}", "--store", "{db}"],
    "ask": ["ask", "apply_discount_evil", "--store", "{db}"],
    "context-pack build": ["context-pack", "build"],
    "run": ["run", "--questions", "{questions}", "--budgets", "500", "--store", "{db}"],
    "runs": ["runs", "--store", "{db}"],
    "assign": ["assign", "1", "--graders", "ann,bob", "--overlap", "1", "--store", "{db}"],
    "progress": ["progress", "1", "--store", "{db}"],
    "grade-offline": ["grade-offline", "--store", "{db}"],
    "judge": ["judge", "1", "--model", CORPUS, "--base-url", "http://127.0.0.1:9/v1", "--store", "{db}"],
    "summary": ["summary", "latest", "--store", "{db}"],
    "compare": ["compare", "1", "latest", "--store", "{db}"],
    "rubric show": ["rubric", "show", "{bundle}"],
    "rubric history": ["rubric", "history", "--store", "{db}"],
    "agree": ["agree", "2", "--store", "{db}"],
    "merge": ["merge", "{other}", "--store", "{db}"],
    "export-scores": ["export-scores", "2", "--store", "{db}"],
    "align": ["align", "2", "--model", CORPUS, "--base-url", "http://127.0.0.1:9/v1", "--store", "{db}"],
    "export": ["export", "2", "--store", "{db}"],
    "import": ["import", "{log}", "--label", CORPUS, "--store", "{db}"],
    "import-traces": ["import-traces", "--langfuse", "{traces}", "--store", "{db}"],
    "import-inspect": ["import-inspect", "{bundle}", "--store", "{db}"],
    "import-promptfoo": ["import-promptfoo", "{promptfoo}", "--store", "{db}"],
    "questions check": ["questions", "check", "{questions}"],
    "questions load": ["questions", "load", "{questions}", "--store", "{db}"],
    "questions flags": ["questions", "flags", "--store", "{db}"],
    "validate-bundle": ["validate-bundle", "{bundle}"],
}


# the commands the issue found echoing outside text: each must show the corpus (escaped), so the test can fail
ECHOED = {"ask", "run", "runs", "summary", "import-traces", "validate-bundle", "questions flags", "export",
          "export-scores", "agree", "import-promptfoo"}


def _leaves(parser: argparse.ArgumentParser, prefix: str = ""):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix
    for action in subs:
        for name, sub in action.choices.items():
            yield from _leaves(sub, f"{prefix} {name}".strip())


SUBCOMMANDS = list(_leaves(build_parser(command_modules(commands.__name__, commands.__path__))))


def test_every_subcommand_has_a_case():
    assert sorted(SUBCOMMANDS) == sorted(CASES)


@pytest.mark.parametrize("command", [c for c in SUBCOMMANDS if isinstance(CASES.get(c), list)])
def test_no_control_sequence_from_the_corpus_reaches_the_terminal(hostile, capsys, monkeypatch, command):
    other = hostile["tmp"] / "other.db"
    values = {**{k: str(v) for k, v in hostile.items()}, "other": str(other)}
    if command == "merge" and not other.exists():
        import shutil

        shutil.copy(hostile["db"], other)
    if command == "context-pack build":
        monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({"hits": [
            {"chunk_id": CORPUS, "text": CORPUS, "file_path": CORPUS, "relevance_score": 1.0, "retrieval_rank": 1,
             "retrieval_method": CORPUS, "symbol_name": CORPUS}]})))
    argv = [a.format(**values) if a.startswith("{") else a for a in CASES[command]]
    shown = ""
    for flags in ([], ["--json"]) if "--store" in argv else ([],):
        code, out, err = cli(capsys, *argv, *flags)
        for stream, text in (("stdout", out), ("stderr", err)):
            found = FORBIDDEN.search(text)
            assert found is None, f"{command} {flags}: {stream} carries {found.group()!r} (exit {code}): {text[:2000]}"
        shown += out + err
    assert "\\x1b" in shown or "\\u202e" in shown or command not in ECHOED, f"{command}: the corpus never showed"
