"""import / export / export-scores / validate-bundle with the lesson's and the ecosystem's formats, end to end on real
stores through the real CLI."""

from __future__ import annotations

import json
import sqlite3

from tests.fixtures.cli import cli
from tests.fixtures.lesson_files import (COMPARISON_LINES, HARNESS_LINES, RAGAS_ROWS, graded_harness_line,
                                         hand_graded, lesson_bundle_json, lesson_snippet, retrieval_graded_line,
                                         write_lines)


def test_the_lessons_comparison_log_imports_and_exports_in_its_own_format(tmp_path, capsys):
    log = write_lines(tmp_path / "bundle_comparison.jsonl",
                      [hand_graded(COMPARISON_LINES[0], "wrong", "fully_correct", "raw guessed"), COMPARISON_LINES[1]])
    db = tmp_path / "s.db"
    code, out, _ = cli(capsys, "import", log, "--store", db, "--grader", "dana")
    assert code == 0
    assert out == (f"{log}: imported as run 1: 2 lines, 4 answers, 0 imported grades, 2 human grades "
                   "(read as bundle-comparison log)\n")
    out_file = tmp_path / "out.jsonl"
    code, out, err = cli(capsys, "export", "--format", "comparison", "-o", out_file, "--store", db)
    assert code == 0 and out == "" and "2 questions written" in err
    lines = [json.loads(ln) for ln in out_file.read_text(encoding="utf-8").splitlines()]
    assert [(ln["raw_chunks"], ln["bundle_chunks"], ln["raw_grade"], ln["bundle_grade"]) for ln in lines] == \
        [(10, 4, "wrong", "fully_correct"), (10, 3, None, None)]
    code, out, _ = cli(capsys, "summary", "--store", db, "--json")
    assert code == 0


def test_import_format_and_grades_from_flags(tmp_path, capsys):
    log = write_lines(tmp_path / "graded.jsonl", [hand_graded(COMPARISON_LINES[0], "wrong", None)])
    code, out, _ = cli(capsys, "import", log, "--store", tmp_path / "a.db", "--grades-from", "judge:gpt-4o", "--json")
    assert code == 0 and (json.loads(out)["grades"], json.loads(out)["human_grades"]) == (1, 0)
    code, _, err = cli(capsys, "import", log, "--store", tmp_path / "b.db", "--grades-from", "rule:x")
    assert code == 2 and "--grades-from: 'rule:x' is not human, judge:MODEL or imported" in err
    code, _, err = cli(capsys, "import", log, "--store", tmp_path / "b.db", "--format", "ragas")
    assert code == 2 and f"{log}:1: user_input: missing" in err
    assert not (tmp_path / "b.db").exists()


def test_a_graded_harness_log_names_its_judge_in_agree(tmp_path, capsys):
    lines = [graded_harness_line(HARNESS_LINES[0], "fully_correct", None, "ok", 0.9, "judge-7b"),
             graded_harness_line(HARNESS_LINES[1], "wrong", "missing_evidence", "no", 0.8, "judge-7b")]
    db = tmp_path / "s.db"
    assert cli(capsys, "import", write_lines(tmp_path / "run-graded.jsonl", lines), "--store", db)[0] == 0
    code, out, _ = cli(capsys, "agree", "--store", db, "--json", "--bootstrap", "0")
    assert code == 0 and "judge-7b" in json.loads(out)["machine"]["label"]


def test_ragas_rows_in_and_out(tmp_path, capsys):
    db = tmp_path / "s.db"
    assert cli(capsys, "import", write_lines(tmp_path / "ragas.jsonl", RAGAS_ROWS), "--store", db)[0] == 0
    code, out, _ = cli(capsys, "export", "--format", "ragas", "--store", db)
    rows = [json.loads(ln) for ln in out.splitlines()]
    assert code == 0 and [r["user_input"] for r in rows] == [r["user_input"] for r in RAGAS_ROWS]
    assert rows[1]["rubric"] == RAGAS_ROWS[1]["rubric"] and rows[0]["method"] == "raw"


def test_export_scores_formats(tmp_path, capsys):
    db = tmp_path / "s.db"
    log = write_lines(tmp_path / "graded.jsonl", [hand_graded(COMPARISON_LINES[0], "wrong", "fully_correct")])
    assert cli(capsys, "import", log, "--store", db)[0] == 0
    configs = tmp_path / "configs.jsonl"
    code, out, err = cli(capsys, "export-scores", "--format", "langfuse", "--configs", configs, "--store", db)
    records = [json.loads(ln) for ln in out.splitlines()]
    assert code == 0 and {r["dataType"] for r in records} == {"CATEGORICAL", "BOOLEAN"}
    assert "score config(s) written" in err and json.loads(configs.read_text().splitlines()[0])["name"] == "grade"
    code, out, _ = cli(capsys, "export-scores", "--format", "phoenix", "--store", db)
    assert code == 0 and {json.loads(ln)["annotator_kind"] for ln in out.splitlines()} == {"HUMAN"}
    code, _, err = cli(capsys, "export-scores", "--configs", configs, "--store", db)
    assert code == 2 and "--configs: score configs are Langfuse's" in err
    # the hand-filled grades are undone in the store: --withdrawn names the Langfuse scores to delete
    gone = tmp_path / "withdrawn.jsonl"
    with sqlite3.connect(db) as conn:
        for uid, answer, grader in conn.execute("SELECT uuid, answer_id, grader FROM human_grades").fetchall():
            conn.execute("INSERT INTO human_grades (uuid, answer_id, grader, action, undoes_uuid, created_at) "
                         "VALUES (?, ?, ?, 'undo', ?, '2026-11-23T00:00:00+00:00')", (f"u-{uid}", answer, grader, uid))
    code, out, err = cli(capsys, "export-scores", "--format", "langfuse", "--withdrawn", gone, "--store", db)
    assert code == 0 and out == "" and "withdrawn score(s) written" in err
    assert {json.loads(ln)["id"] for ln in gone.read_text().splitlines()} == {r["id"] for r in records}


def test_export_scores_carries_the_scorers_metrics(tmp_path, capsys):
    """A harness log with the lesson's retrieval grader's fields (one recall left empty), scored offline: every
    metric is exported in each format, an undefined one never as a number, and exporting after re-scoring updates."""
    lines = [retrieval_graded_line(HARNESS_LINES[0], 1.0, 0.5, 1.0, ["src/invalidate.py"], []),
             {**retrieval_graded_line(HARNESS_LINES[1], 0.0, 0.0, 0.0, ["src/main.py"], ["src/config.py"]),
              "retrieval_file_recall": None}]
    db = tmp_path / "s.db"
    assert cli(capsys, "import", write_lines(tmp_path / "run-retrieval.jsonl", lines), "--store", db)[0] == 0
    assert cli(capsys, "grade-offline", "--store", db)[0] == 0

    def export(*flags: str) -> list[dict]:
        code, out, err = cli(capsys, "export-scores", *flags, "--store", db)
        assert code == 0 and "score record(s) of run 1" in err
        return [json.loads(ln) for ln in out.splitlines()]

    records = [r for r in export() if r["grader"].startswith("scorer:")]
    # per answer: 3 imported metrics, 5 retrieval evals and 2 code coverage figures (unlabelled questions: not
    # defined), 2 offline scores
    assert len(records) == 2 * (3 + 5 + 2 + 2) and len({r["id"] for r in records}) == len(records)
    by = {(r["question_id"], r["name"], r["grader"]): r for r in records}
    assert by[("h1", "file_recall", "scorer:import:run-retrieval.jsonl")]["value"] == 0.5
    empty = by[("h2", "file_recall", "scorer:import:run-retrieval.jsonl")]
    assert empty["value"] is None and empty["comment"] == "not defined"
    assert empty["metadata"]["detail"] == {"missing_files": ["src/main.py"]}
    unlabelled = [r for r in records if r["grader"] == "scorer:id-based"]
    assert len(unlabelled) == 10 and all(r["value"] is None and "labels" in r["comment"] for r in unlabelled)
    code = [r for r in records if r["grader"] == "scorer:code-lines"]
    assert len(code) == 4 and all(r["value"] is None and "labels" in r["comment"] for r in code)
    offline = [r for r in records if r["grader"] == "scorer:offline-rapidfuzz"]
    assert {r["name"] for r in offline} == {"faithfulness", "answer_relevance"}
    assert all(isinstance(r["value"], float) for r in offline)

    configs = tmp_path / "configs.jsonl"
    langfuse = export("--format", "langfuse", "--configs", configs)
    config_names = {json.loads(ln)["name"] for ln in configs.read_text().splitlines()}
    assert {r["name"] for r in langfuse} <= config_names
    assert sorted((r["metadata"]["question_id"], r["name"], r["metadata"]["grader"], r["value"]) for r in langfuse
                  if r["metadata"]["grader_kind"] == "scorer") == \
        sorted((r["question_id"], r["name"], r["grader"], r["value"]) for r in records if r["value"] is not None)
    phoenix = export("--format", "phoenix")
    scorer_notes = [r for r in phoenix if r["identifier"].startswith("scorer:")]
    assert len(scorer_notes) == len(records)
    assert all(r["annotator_kind"] == "CODE" for r in scorer_notes)
    assert all("score" not in r["result"] and r["result"]["explanation"] for r in scorer_notes
               if r["identifier"] == "scorer:id-based")

    # scored again: the same scores, updated, none added beside the old
    assert cli(capsys, "grade-offline", "--store", db)[0] == 0
    assert [r["id"] for r in export("--format", "langfuse")] == [r["id"] for r in langfuse]
    assert [r["id"] for r in export() if r["grader"].startswith("scorer:")] == [r["id"] for r in records]
    assert [(r["name"], r["span_id"], r["identifier"]) for r in export("--format", "phoenix")] == \
        [(r["name"], r["span_id"], r["identifier"]) for r in phoenix]


def test_validate_bundle_on_the_lessons_bundle_and_packs(tmp_path, capsys):
    path = tmp_path / "bundle.json"
    path.write_text(lesson_bundle_json([lesson_snippet(1, "def invalidate(self):\n    self._data.clear()")]))
    code, out, _ = cli(capsys, "validate-bundle", path)
    assert code == 0 and out.startswith(f"{path}: evidence bundle: ok (1 snippets, ")
    assert out.rstrip().endswith("tokens counted in the seed's to_prompt_context layout; tiktoken/o200k_base, the "
                                 "default: the file names no tokenizer)")
    broken = [lesson_snippet(1, "x = 1", selection_reason=None), lesson_snippet(2, "x = 1")]
    path.write_text(lesson_bundle_json(broken))
    code, out, err = cli(capsys, "validate-bundle", path)
    assert code == 1 and out.splitlines() == [f"{path}: evidence 1 (chunk-1): selection_reason: selection_reason is "
                                              "missing", f"{path}: evidence 2 (chunk-2): duplicate: same content as "
                                              "evidence 1"]
    assert "evidence bundle: 2 violation(s)" in err
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps({"text": "a\n\nb", "evidence_count": 2,
                                "blocks": [{"evidence_item_id": "x", "text": "a", "metadata": None},
                                           {"evidence_item_id": "y", "text": "b", "metadata": None}]}))
    code, out, _ = cli(capsys, "validate-bundle", pack)
    assert code == 0 and out == (f"{pack}: context pack: ok (2 blocks, 4 characters; budgets: none recorded; "
                                 "no tokenizer named)\n")
    code, out, _ = cli(capsys, "validate-bundle", pack, "--format", "bundle")
    assert code == 1 and f"{pack}: bundle: schema: snippets: missing" in out
