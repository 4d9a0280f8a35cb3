"""What `import-inspect` and `import-promptfoo` print after an import: the same report, in words or as JSON."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.output import info, print_json
from gradedesk.core.exchange.traces import TraceImport, TraceRead


def report_import(args: argparse.Namespace, read: TraceRead, report: TraceImport, unit: str) -> int:
    for line in report.skipped:
        info(line)
    if report.changed:
        info(f"{report.changed} {unit}(s) imported before now read otherwise in the file ({report.changed_graded} of "
             "them graded by a person); the store keeps what was imported and graded")
    if args.json:
        print_json(report.to_dict())
        return 0
    print(f"{read.source} {read.title}: {report.answers} new {unit}(s) {'as' if report.created else 'added to'} run "
          f"{report.run_id} ({report.questions} new question(s), {report.paired} paired, {report.grades} machine "
          "grade(s))" + (f"; {report.already} already imported" if report.already else "")
          + (f"; skipped {len(report.skipped)}" if report.skipped else ""))
    return 0
