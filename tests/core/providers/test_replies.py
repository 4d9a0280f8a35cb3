"""Reply bodies: the final text, reasoning kept apart (think blocks or reasoning_content), and why the model stopped."""

from __future__ import annotations

import pytest

from gradedesk.core.providers.chat import ProviderError
from gradedesk.core.providers.replies import read_reply, split_reasoning


def body(message: dict, finish: str | None = "stop") -> dict:
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish}]}


def test_think_blocks_are_split_from_the_final_text():
    assert split_reasoning('<think>is it {"a": 1}?</think>\n{"grade": "wrong"}') == ('{"grade": "wrong"}',
                                                                                     'is it {"a": 1}?')
    assert split_reasoning("opened by the template</think> answer") == ("answer", "opened by the template")
    assert split_reasoning("<think>cut at the limit, never closed") == ("", "cut at the limit, never closed")
    assert split_reasoning("no thinking here") == ("no thinking here", None)


def test_reasoning_content_and_finish_reason_are_read():
    reply = read_reply(body({"content": "ok", "reasoning_content": "because"}, "length"))
    assert (reply.text, reply.reasoning, reply.finish_reason) == ("ok", "because", "length")
    cut = read_reply(body({"content": None, "reasoning_content": "still thinking"}, "length"))
    assert (cut.text, cut.reasoning) == ("", "still thinking")  # an empty answer, not a broken reply


@pytest.mark.parametrize("bad", [{"id": 1}, body({"role": "assistant"}), body({"content": 3}), [1]])
def test_wrong_shaped_replies_are_retryable_schema_errors(bad):
    with pytest.raises(ProviderError) as info:
        read_reply(bad)
    assert info.value.kind == "schema" and info.value.retryable
