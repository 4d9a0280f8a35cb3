"""What the desk showed when each key acted, one JSON line per key, when GRADEDESK_KEY_LOG names a file: who, the key,
the item and the focused answer on screen. Tests of several desks grading at once (tests/tui/test_three_desks.py)
check every grade against it; lines are appended whole, so desks in several processes may share one file."""

from __future__ import annotations

import json
import os
import time


def log_key(grader: str, key_id: str, question_pk: int | None, answer_id: int | None) -> None:
    path = os.environ.get("GRADEDESK_KEY_LOG")
    if not path:
        return
    line = json.dumps({"t": time.time(), "grader": grader, "key": key_id, "question_pk": question_pk,
                       "answer_id": answer_id}) + "\n"
    with open(path, "a", encoding="utf-8") as f:
        f.write(line)
