"""The offline extractive answerer: deterministic, cites evidence labels and files with line numbers."""

from __future__ import annotations

from gradedesk.core.providers import OfflineExtractiveProvider, extractive_answer
from gradedesk.core.text.tokens import count_tokens
from tests.fixtures.providers import complete


BUNDLE_CONTEXT = """Question: How does open_store apply the schema?

[Evidence 1] core/store.py :: open_store (lines 40-43) [symbol, score: 0.9000]
Reason included: defines open_store
def open_store(path):
    conn = _connect(path)
    for statement in _statements(schema_sql()):
        conn.execute(statement)

---

[Evidence 2] core/tokens.py (lines 1-2) [bm25, score: 0.1000]
import tiktoken
VALUE = 1"""

RAW_CONTEXT = """Question: How does open_store apply the schema?

File: core/tokens.py (lines 1-2)
import tiktoken
VALUE = 1"""


def test_offline_provider_cites_labels_and_lines_deterministically():
    p = OfflineExtractiveProvider()
    messages = [{"role": "system", "content": "x"}, {"role": "user", "content": BUNDLE_CONTEXT}]
    first = complete(p, messages)
    assert first.text == complete(p, messages).text
    assert "`def open_store(path):` [Evidence 1] core/store.py:40" in first.text
    assert "for statement in _statements(schema_sql()):` [Evidence 1] core/store.py:42" in first.text
    assert "tiktoken" not in first.text  # unrelated evidence is not quoted
    assert first.tokens_counted and first.cost_usd == 0.0
    assert first.tokens_out == count_tokens(first.text)


def test_offline_answers_differ_as_the_evidence_differs():
    bundled = extractive_answer(BUNDLE_CONTEXT)
    raw = extractive_answer(RAW_CONTEXT)
    assert bundled != raw
    assert raw.startswith("The context is insufficient")
    with_file = extractive_answer(RAW_CONTEXT.replace("VALUE = 1", "def open_store(): apply schema"))
    assert "(File: core/tokens.py:2)" in with_file
    # only the citations differ: the opening words must not tell a person which answer is raw
    assert with_file.split("\n")[0] == bundled.split("\n")[0] == "From the context, the most relevant lines are:"


def test_a_quoted_line_that_holds_backticks_stays_one_code_span_and_cites_nothing_it_quotes():
    from gradedesk.core.evidence.record import Evidence
    from gradedesk.core.grading.claims import split_claims
    from gradedesk.core.text.matching import inline_code

    context = ("Question: How are raw blocks written?\n\nContext:\n\n"
               "File: core/runs/prompts.py (lines 4-5)\n"
               "RAW_K raw blocks are written as `File: path (lines a-b)` blocks in rank order.\n"
               "def raw_block(hit):")
    answer = extractive_answer(context)
    assert "- ``RAW_K raw blocks are written as `File: path (lines a-b)` blocks in rank order.`` " \
           "(File: core/runs/prompts.py:4)" in answer
    [_, quoted, _] = split_claims(answer, [Evidence("core/runs/prompts.py", start_line=4, end_line=5, position=1)])
    assert [(c.target, c.valid) for c in quoted.citations] == [("core/runs/prompts.py:4", True)]
    assert inline_code("`x`") == "`` `x` ``" and inline_code("plain") == "`plain`"
