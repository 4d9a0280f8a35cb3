"""Faithfulness (share of the answer's claims its evidence supports) and answer relevance (does it address the question).

Each metric has two versions, stored in answer_scores under the method that made it:

- offline (method OFFLINE_METHOD, no model): claims are the answer's sentences, the same pieces a person marks at the
  desk (core/text/matching.py); a claim is supported when at least SUPPORT_SHARE of its key terms (code terms and
  content words) occur in the evidence, exact or as a rapidfuzz near match. Relevance is the share of the question's
  key terms the answer takes up; an answer that declines to answer has relevance 0.
- LLM (method "llm:<judge model>", through the judge endpoint): the model lists the answer's claims and says of each
  whether the evidence supports it (RAGAS-style faithfulness = supported / claims), and rates relevance 0, 0.5 or 1
  against a short scale.

Undefined is not zero: an answer with no claims (empty, or only "I don't know") has faithfulness NULL with a reason.
An LLM reply that cannot be used is stored with value NULL and detail {"error": "grading_error"}; a call that failed
after its retries is stored with {"error": "call_failed"} and retried on the next run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.evidence.stored import answer_evidence
from gradedesk.core.progress import Progress
from gradedesk.core.providers.structured import Shape, object_schema, text
from gradedesk.core.store.answers import answers_of_run
from gradedesk.core.store.machine_grades import Score, store_scores
from gradedesk.core.grading.llm_io import ReplyError, format_evidence, parse_json_reply, require, section
from gradedesk.core.grading.reply_format import EXAMPLE_MARK, ReplyFormat
from gradedesk.core.store.connection import Store
from gradedesk.core.text.matching import Haystack, abstains, key_terms, sentences

OFFLINE_METHOD = "offline-rapidfuzz"
SUPPORT_SHARE = 0.6
SCORE_METRICS = ("faithfulness", "answer_relevance")
RELEVANCE_SCALE = (0.0, 0.5, 1.0)
MAX_CLAIMS = 12  # claims a faithfulness reply may list under its schema (a short answer makes a few)


LLM_PREFIX = "llm:"


def llm_method(model: str) -> str:
    return f"{LLM_PREFIX}{model}"


def is_llm_method(method: str) -> bool:
    """Whether a stored score's method is an LLM scorer's (else code made it: offline, id-based, imported)."""
    return method.startswith(LLM_PREFIX)


def offline_faithfulness(answer: str | None, evidence: list[Evidence]) -> Score:
    claims = [c for c in sentences(answer or "") if not abstains(c) and key_terms(c)]
    if not claims:
        return Score("faithfulness", None, {"reason": "the answer makes no claims", "claims": []})
    hay = Haystack("\n".join([e.text for e in evidence] + [e.file_path for e in evidence if e.file_path]
                             + [e.symbol_name or "" for e in evidence]))
    verdicts: list[dict[str, Any]] = [{"claim": c[:200], "supported": (hay.share(key_terms(c)) or 0.0) >= SUPPORT_SHARE}
                                      for c in claims]
    supported = sum(v["supported"] for v in verdicts)
    return Score("faithfulness", supported / len(claims), {"claims": verdicts, "supported": supported})


def offline_relevance(question: str, answer: str | None) -> Score:
    answer = (answer or "").strip()
    terms = key_terms(question)
    if not answer or abstains(answer):
        return Score("answer_relevance", 0.0, {"reason": "the answer does not answer"})
    if not terms:
        return Score("answer_relevance", None, {"reason": "the question has no key terms to look for"})
    said = Haystack(answer)
    found = [t for t in terms if said.has(t)]
    return Score("answer_relevance", len(found) / len(terms),
                 {"question_terms": terms, "missing_terms": [t for t in terms if t not in found]})


def score_offline_run(store: Store, run_id: int, progress: Progress | None = None) -> int:
    """Offline faithfulness and relevance for every answered answer of a run (deterministic, so always recomputed)."""
    answers = answers_of_run(store, run_id)
    with store.transaction():
        for n, a in enumerate(answers, start=1):
            scores = [offline_faithfulness(a["text"], answer_evidence(store, a)), offline_relevance(a["question"], a["text"])]
            store_scores(store, a["id"], scores, OFFLINE_METHOD)
            if progress:
                progress("scores", n, len(answers), 0)
    return len(answers)


# LLM versions -----------------------------------------------------------------------------------------------------------
CLAIM_SHOWN = "<short claim>"  # an older faithfulness format's placeholder for a claim (a stored copy stays refused)
FAITHFULNESS_SYSTEM = """You check whether an answer about a code repository is grounded in the evidence it was given.
1. Split the ANSWER into its atomic factual claims about the code (names, behaviour, locations, relationships). Skip
   citations, hedges and statements that the evidence is insufficient.
2. For each claim decide: supported = true only if the EVIDENCE states or directly shows it; otherwise false (also when
   it is true in general but the evidence does not show it)."""

RELEVANCE_SYSTEM = """You rate whether an answer addresses the question that was asked (not whether it is correct).
1   = it answers this question directly.
0.5 = it addresses the question only in part, or mostly talks about something else.
0   = it does not address the question: declines, says it cannot tell, or answers a different question."""


def faithfulness_messages(question: str, answer: str, evidence: list[Evidence]) -> list[dict]:
    user = "\n\n".join([section("QUESTION", question), section("EVIDENCE", format_evidence(evidence)),
                        section("ANSWER", answer)])
    return [{"role": "system", "content": FAITHFULNESS_SYSTEM}, {"role": "user", "content": user}]


def relevance_messages(question: str, answer: str) -> list[dict]:
    user = "\n\n".join([section("QUESTION", question), section("ANSWER", answer)])
    return [{"role": "system", "content": RELEVANCE_SYSTEM}, {"role": "user", "content": user}]


def parse_faithfulness(text: str) -> Score:
    data = parse_json_reply(text)
    claims = require(data, "claims", list, "a list")
    verdicts: list[dict[str, Any]] = []
    for n, c in enumerate(claims):
        if not isinstance(c, dict) or not isinstance(c.get("claim"), str) or not isinstance(c.get("supported"), bool):
            raise ReplyError(f"claims[{n}]: must be {{\"claim\": text, \"supported\": true|false}}")
        verdicts.append({"claim": FORMATS["faithfulness"].own(c["claim"], "claim", f"claims[{n}].claim",
                                                              CLAIM_SHOWN)[:200],
                         "supported": c["supported"]})
    if not verdicts:
        return Score("faithfulness", None, {"reason": "the answer makes no claims", "claims": []})
    supported = sum(v["supported"] for v in verdicts)
    return Score("faithfulness", supported / len(verdicts), {"claims": verdicts, "supported": supported})


def parse_relevance(text: str) -> Score:
    data = parse_json_reply(text)
    score = require(data, "score", (int, float), "0, 0.5 or 1")
    if float(score) not in RELEVANCE_SCALE:
        raise ReplyError(f"score: must be 0, 0.5 or 1, got {score}")
    reason = data.get("reason")
    if isinstance(reason, str) and reason.strip():  # a reason is not required, but a copied one is not the model's
        FORMATS["answer_relevance"].own(reason, "reason")
    return Score("answer_relevance", float(score), {"reason": reason if isinstance(reason, str) else ""})


# the replies' JSON schemas (core/providers/structured.py) and what the model is told of them
# (core/grading/reply_format.py), as the system messages above ask for them
FORMATS = {
    "faithfulness": ReplyFormat(
        Shape("faithfulness", object_schema({"claims": {"type": "array", "maxItems": MAX_CLAIMS, "items": object_schema(
            {"claim": text(200, least=1), "supported": {"type": "boolean"}})}})),
        (("claims", "a list with one object for each claim of the ANSWER, in its order, or an empty list when the "
                    "answer makes no factual claims; each object has two fields:"),
         ("  claim", "the claim, in a few words taken from the ANSWER"),
         ("  supported", "true or false, as decided above")),
        {"claims": [{"claim": f"{EXAMPLE_MARK}: open_store sets WAL mode", "supported": True},
                    {"claim": f"{EXAMPLE_MARK}: open_store deletes the old database", "supported": False}]}),
    "answer_relevance": ReplyFormat(
        Shape("answer_relevance", object_schema({"score": {"type": "number", "enum": [0, 0.5, 1]},
                                                 "reason": text(300)})),
        (("score", "0, 0.5 or 1, as the scale above says (a number)"),
         ("reason", "one sentence of your own saying why")),
        {"score": 0.5, "reason": f"{EXAMPLE_MARK}, about another answer: it names the function asked about but "
                                 "describes another one."}),
}
SHAPES = {metric: reply.shape for metric, reply in FORMATS.items()}
PARSERS: dict[str, Callable[[str], Score]] = {"faithfulness": parse_faithfulness, "answer_relevance": parse_relevance}


def score_messages(metric: str, question: str, answer: str, evidence: list[Evidence]) -> list[dict]:
    if metric == "faithfulness":
        return faithfulness_messages(question, answer, evidence)
    return relevance_messages(question, answer)
