"""Printing helpers shared by commands: JSON on stdout, plain aligned tables, progress on stderr."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from gradedesk.core.outputs import check_outputs, write_texts
from gradedesk.core.text.terminal import json_safe, terminal_safe

# What each phase of long work is called on the progress bar (runs, the demo, offline grading, the judge).
PHASE_LABELS = {
    "index": "indexing", "embed": "embedding chunks", "retrieve": "retrieving", "answer": "answering",
    "retrieval": "retrieval evals", "rules": "rule grader", "scores": "offline scores", "judge": "LLM judge",
}


def print_json(data: Any) -> None:
    sys.stdout.write(json_safe(json.dumps(data, indent=2, ensure_ascii=False, default=str)) + "\n")


class TerminalSafe:
    """A text stream (stdout or stderr) that shows every write through terminal_safe: whatever a command prints,
    outside text in it cannot move the cursor, retitle the window, write the clipboard or turn text around.
    JSON printed to it is made safe first with json_safe, which keeps it valid (print_json, write_lines)."""

    def __init__(self, stream: Any):
        self.raw = stream

    def write(self, text: str) -> int:
        self.raw.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding...: the stream's own
        return getattr(self.raw, name)


@contextmanager
def terminal_safe_streams() -> Iterator[None]:
    """stdout and stderr through TerminalSafe while a command runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalSafe(sys.stdout), TerminalSafe(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def raw_stream(stream: Any) -> Any:
    """The stream under TerminalSafe: for gradedesk's own styling (the progress bars' colours and cursor moves)."""
    return stream.raw if isinstance(stream, TerminalSafe) else stream


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A plain aligned table (no markup: cells may hold untrusted text)."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip())
    for r in cells:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value).replace("\n", " ")


def write_lines(records: Iterable[Any], path: str) -> int:
    """Records as JSON lines to stdout (path '-') or to a file that appears whole or not at all; returns how many."""
    lines = jsonl_text(records)
    write_texts([(path, for_path(path, "".join(lines)))])
    return len(lines)


def for_path(path: str, json_text: str) -> str:
    """JSON text as it goes to `path`: on stdout, made terminal-safe (the same values); in a file, as it is."""
    return json_safe(json_text) if path == "-" else json_text


def jsonl_text(records: Iterable[Any]) -> list[str]:
    """Each record as one JSON line, serialised before anything is written (a failure midway writes nothing)."""
    return [json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records]


def output_file(p: argparse.ArgumentParser, *flags: str, **kw: Any) -> argparse.Action:
    """An option naming a file the command writes: main() refuses it when it is the store (or a sidecar), a file the
    command reads or another output, before the command runs (core/outputs.py)."""
    return _file_argument(p, "_output_files", flags, kw)


def input_file(p: argparse.ArgumentParser, *flags: str, **kw: Any) -> argparse.Action:
    """An argument naming a file the command reads: no output of the command, nor the store, may be it."""
    return _file_argument(p, "_input_files", flags, kw)


def _file_argument(p: argparse.ArgumentParser, key: str, flags: Sequence[str], kw: dict[str, Any]) -> argparse.Action:
    action = p.add_argument(*flags, **kw)
    flag = action.option_strings[-1] if action.option_strings else str(action.metavar or action.dest)
    p.set_defaults(**{key: (*(p.get_default(key) or ()), (flag, action.dest))})
    return action


def check_files(args: argparse.Namespace) -> None:
    """The command's outputs are not the store, its inputs or each other; the store is not one of its inputs."""
    outputs = {flag: getattr(args, dest) for flag, dest in getattr(args, "_output_files", ())}
    reads = [getattr(args, dest) for _, dest in getattr(args, "_input_files", ())]
    store = getattr(args, "store", None)
    check_outputs(outputs, store=store, reads=reads)
    if store is not None:
        check_outputs({"--store": store}, reads=reads)


def info(message: str) -> None:
    print(message, file=sys.stderr)


# Off a terminal, a progress line per stage under way at least this often (CI logs, nohup, pipes).
PROGRESS_LINE_SECONDS = 10.0


@contextmanager
def progress_bars(interval: float = PROGRESS_LINE_SECONDS) -> Iterator[Callable[..., None]]:
    """Progress on stderr as a callback (phase, done, total[, failed]): Rich bars, one per phase, on a terminal;
    elsewhere a plain line per phase under way every `interval` seconds (done/total, failures, rate, time left)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(file=raw_stream(sys.stderr))  # its own colours and cursor moves; labels are gradedesk's
    if not console.is_terminal:
        with progress_lines(interval) as update:
            yield update
        return
    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[failed]}", markup=False), TimeElapsedColumn())
    with Progress(*columns, console=console) as bar:
        tasks: dict[str, Any] = {}

        def update(phase: str, done: int, total: int, failed: int = 0, *, unusable: int | None = None) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(PHASE_LABELS.get(phase, phase), total=total, failed="")
            from gradedesk.core.progress import split

            shown = split(done, failed, unusable) if failed or unusable else ""
            bar.update(tasks[phase], completed=done, total=total, failed=shown)

        yield update


@contextmanager
def progress_lines(interval: float = PROGRESS_LINE_SECONDS) -> Iterator[Callable[..., None]]:
    """The non-terminal display: a timer thread prints each unfinished phase's line every `interval` seconds, so a
    slow call (no callback for minutes) still shows the command is alive. Quick work prints nothing."""
    import threading

    from gradedesk.core.progress import ProgressState

    state = ProgressState(PHASE_LABELS)
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(interval):
            for line in state.active_lines():
                print(line, file=sys.stderr, flush=True)

    timer = threading.Thread(target=tick, name="progress-lines", daemon=True)
    timer.start()
    try:
        yield state.update
    finally:
        stop.set()
        timer.join()
