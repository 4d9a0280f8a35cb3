"""Off a terminal (stderr piped, as CI and nohup see it), run and judge print a progress line at least every 10 s."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time

from tests.fixtures import REPO_ROOT

STARTUP = 5.0  # the child's own start (imports, opening the store) before its progress timer runs


def timed_stderr(args: list[str], timeout: float = 120) -> tuple[int, list[tuple[float, str]], float]:
    """(exit code, [(seconds since start, stderr line)], seconds the command took), stderr piped."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "gradedesk.tui", *args], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append((time.monotonic() - start, line.rstrip("\n")))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    proc.stdout.read() if proc.stdout else None
    code = proc.wait(timeout=timeout)
    took = time.monotonic() - start
    reader.join(timeout=10)
    return code, lines, took


def assert_progress(lines: list[tuple[float, str]], took: float, label: str, total: int) -> None:
    # a grader's line counts its usable and unusable replies apart from the failed calls
    pattern = re.compile(rf"^{label}: (\d+)/{total} done, (\d+ usable, 0 unusable, )?0 failed, "
                         rf"(rate unknown yet|[0-9.]+/s, about .+ left)")
    shown = [(t, m) for t, line in lines if (m := pattern.match(line))]
    assert shown, lines
    first = shown[0][0]
    # the work starts once the plan is printed, after the endpoint's probes (a few requests, slow on a busy machine)
    planned = next((t for t, line in lines if re.match(r"gradedesk: (run|judge) \S+: \d+ calls,", line)), 0.0)
    assert first - planned <= 10 + STARTUP, (first, lines)  # within 10 s of the work's start
    assert first < took - 0.5 and int(shown[0][1].group(1)) < total  # while the calls were still under way
    assert all(b - a <= 10.5 for (a, _), (b, _) in zip(shown, shown[1:])), shown


def test_run_and_judge_print_progress_lines_off_a_terminal(project, chat_server):
    db, questions = map(str, project)
    endpoint = ["--model", "slow-model", "--base-url", chat_server.base_url, "--concurrency", "1", "--store", db]
    chat_server.delay_next(2.0, times=6)  # the 6 answers (3 questions, raw and one budget) take about 12 s
    code, lines, took = timed_stderr(["run", "--questions", questions, "--budgets", "300", *endpoint])
    assert code == 0, lines
    assert_progress(lines, took, "answering", 6)
    assert re.search(r"answering: [1-5]/6 done, 0 failed, [0-9.]+/s, about \d+ s left", "\n".join(text for _, text in lines))

    chat_server.responder = lambda body: '{"grade": "fully_correct", "failure_label": null, "confidence": 0.9, ' \
                                         '"reasoning": "fine"}'
    chat_server.delay_next(2.0, times=6)  # 6 verdicts, about 12 s
    code, lines, took = timed_stderr(["judge", "--no-scores", "--model", "slow-judge", "--base-url",
                                      chat_server.base_url, "--concurrency", "1", "--store", db])
    assert code == 0, lines
    assert_progress(lines, took, "LLM judge", 6)
    assert re.search(r"LLM judge: ([1-5])/6 done, \1 usable, 0 unusable, 0 failed", "\n".join(t for _, t in lines))
