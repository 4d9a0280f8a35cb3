"""gradedesk export-scores [RUN]: human and machine grades, people's claim marks and the scorers' metrics as score
records (JSONL):
gradedesk's own, Langfuse's score API records, or Phoenix span annotations."""

from __future__ import annotations

import argparse

from gradedesk.core.exchange.formats import FILE_SCORE_FORMATS, SCORE_FORMATS
from gradedesk.core.cli.output import output_file

ORDER = 47


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "export-scores", parents=[common],
        help="export grades, claim marks and metrics as score records (JSONL): gradedesk, Langfuse or Phoenix",
        description="People's current grades, every machine grade of the run, people's claim marks (claim_mark "
                    "per claim; faithfulness and citation_precision, 0-1, per fully marked answer) and the scorers' "
                    "metrics (faithfulness, answer_relevance, the retrieval evals: NUMERIC 0-1, grader "
                    "scorer:<method>; a metric not defined for an answer is null in gradedesk's records, left out "
                    "of Langfuse's, and a Phoenix annotation without a score), and people's flags on questions (flag, "
                    "CATEGORICAL: bad_gold, ambiguous, other; a score of the question, not in Phoenix's), one JSON "
                    "object per line. "
                    "gradedesk (default): name, value, data_type, source (HUMAN or EVAL), comment, grader, time, "
                    "trace_id, observation_id, run/answer/question ids, metadata. langfuse: the records Langfuse's "
                    "score API accepts as they are (camelCase; 32-hex traceId and 16-hex observationId derived from "
                    "run, question and answer; id an idempotency key), with --configs for its score configs. "
                    "phoenix: Phoenix span annotations (name, annotator_kind, result, identifier, span_id). "
                    "inspect: a copy of the Inspect log the run was imported from (import-inspect), written to --out, "
                    "with each person's current grade as a score edit of the sample's pass/fail scores (author the "
                    "person, reason the note; needs gradedesk[inspect]). promptfoo: a copy of the results file the "
                    "run was imported from (import-promptfoo), written to --out, with each person's current grade as "
                    "a human rating (pass, score, the note as comment).")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.add_argument("--format", default="gradedesk", choices=SCORE_FORMATS + FILE_SCORE_FORMATS,
                   help="which records (default: gradedesk)")
    output_file(p, "--out", metavar="FILE", help="write here instead of stdout (JSONL); with --format inspect the new "
                                                  "log (required; never the log the run came from)")
    output_file(p, "--configs", metavar="FILE.jsonl",
                   help="with --format langfuse: also write the score configs the scores follow (grade CATEGORICAL, "
                        "pass and failure labels BOOLEAN, the four dimensions NUMERIC 1-5, claim_mark and flag "
                        "CATEGORICAL, faithfulness, citation_precision, answer_relevance and the retrieval evals "
                        "NUMERIC 0-1)")
    output_file(p, "--withdrawn", metavar="FILE.jsonl",
                   help="also write the scores an earlier export may have carried that the store no longer has (a "
                        "grade undone, a dimension or failure label cleared, a claim mark or a flag taken back), as "
                        "the format names them: Langfuse score ids to delete, Phoenix (span_id, name, identifier), "
                        "gradedesk ids")
    p.add_argument("--push", nargs="?", const="", default=None, metavar="URL",
                   help="send the records instead of writing them: phoenix, as span annotations on the spans a run "
                        "imported with `import-traces --phoenix` came from, to the Phoenix server at URL (needs "
                        "gradedesk[phoenix]); langfuse, as scores through the Langfuse SDK to URL or $LANGFUSE_HOST, "
                        "with $LANGFUSE_PUBLIC_KEY and $LANGFUSE_SECRET_KEY (needs gradedesk[langfuse]); a score "
                        "withdrawn since an earlier push is overwritten with the label withdrawn (Phoenix) or deleted "
                        "(Langfuse)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.output import for_path, info, jsonl_text
    from gradedesk.core.outputs import write_texts
    from gradedesk.core.errors import UserError
    from gradedesk.core.exchange.scores import gradedesk_records
    from gradedesk.core.exchange.scores_langfuse import langfuse_scores, score_configs
    from gradedesk.core.exchange.scores_phoenix import phoenix_annotations
    from gradedesk.core.exchange.scores_withdrawn import withdrawn_records
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    if args.configs and args.format != "langfuse":
        raise UserError("--configs: score configs are Langfuse's; add --format langfuse")
    if args.format in FILE_SCORE_FORMATS:
        return _export_file(args)
    if args.push is not None:
        from gradedesk.core.cli.push import push

        return push(args)
    records_of = {"gradedesk": gradedesk_records, "langfuse": langfuse_scores, "phoenix": phoenix_annotations}
    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        records = list(records_of[args.format](store, run_id))
        gone = list(withdrawn_records(store, run_id, args.format)) if args.withdrawn else []
    configs = jsonl_text(score_configs()) if args.configs else []
    withdrawn = jsonl_text(gone)
    lines = jsonl_text(records)
    # every file at once: a failure leaves the others as they were too
    write_texts([*([(args.configs, "".join(configs))] if args.configs else []),
                 *([(args.withdrawn, "".join(withdrawn))] if args.withdrawn else []),
                 (args.out or "-", for_path(args.out or "-", "".join(lines)))])
    if args.configs:
        info(f"{len(configs)} score config(s) written to {args.configs}")
    if args.withdrawn:
        info(f"{len(withdrawn)} withdrawn score(s) written to {args.withdrawn}")
    info(f"{len(lines)} score record(s) of run {run_id}" + (f" written to {args.out}" if args.out else ""))
    return 0


def _export_file(args: argparse.Namespace) -> int:
    """--format inspect, promptfoo: people's grades written into a copy of the file the run's answers came from."""
    from pathlib import Path

    from gradedesk.core.cli.output import info
    from gradedesk.core.errors import UserError
    from gradedesk.core.exchange.inspect_log import export_inspect
    from gradedesk.core.exchange.promptfoo_results import export_promptfoo
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    for flag, given in (("--withdrawn", args.withdrawn), ("--push", args.push is not None)):
        if given:
            raise UserError(f"{flag}: not with --format {args.format} (a new copy holds only the current grades)")
    if not args.out:
        raise UserError(f"--out: --format {args.format} writes a new file; name it with --out")
    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        if args.format == "inspect":
            edits = export_inspect(store, run_id, Path(args.out))
            done, written = f"{edits.edits} score edit(s) from {edits.graded} graded sample(s)", edits.written
        else:
            ratings = export_promptfoo(store, run_id, Path(args.out))
            done, written = f"{ratings.ratings} human rating(s) of {ratings.graded} graded result(s)", ratings.written
    info(f"run {run_id}: {done} written to " + ", ".join(str(p) for p in written))
    return 0
