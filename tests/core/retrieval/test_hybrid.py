"""Hybrid retrieval on a real indexed repository; BM25 numbers checked against rank_bm25.BM25Okapi."""

from __future__ import annotations

import numpy as np
import pytest
from rank_bm25 import BM25Okapi
from tests.fixtures.sample_repo import make_sample_repo

import gradedesk.core.retrieval.hybrid as retrieve_module
from gradedesk.core.retrieval.baseline import baseline_retrieve
from gradedesk.core.index.bm25 import SparseBM25
from gradedesk.core.index.chunking import WINDOW_LINES
from gradedesk.core.text.codeterms import code_tokens, plain_tokens, query_variants, split_identifier
from gradedesk.core.index.indexer import document_terms, index_repository, resolve_repo
from gradedesk.core.text.question import classify_question, question_identifiers
from gradedesk.core.retrieval.hybrid import load_index, retrieve
from gradedesk.core.store.connection import open_store


@pytest.fixture
def store(tmp_path):
    repo = make_sample_repo(tmp_path / "parcels")
    with open_store(tmp_path / "store.db") as s:
        index_repository(s, repo)
        yield s


def test_code_tokens_split_identifiers_and_keep_them_whole():
    assert split_identifier("parse_file") == ("parse_file", "parse", "file")
    assert split_identifier("HTTPServerRequest") == ("httpserverrequest", "http", "server", "request")
    assert code_tokens("How does json.dumps encode floats?") == ["json", "dump", "encode", "float"]
    assert plain_tokens("parse_file(x)") == ["parse_file", "x"]
    assert query_variants(["saved", "parsing", "bundle"]) == ["saved", "parsing", "bundle", "save", "sav", "pars",
                                                             "parse"]


def test_question_types_and_identifiers():
    assert classify_question("What calls ship_parcel?") == "relationship"
    assert classify_question("Where is ParcelStore defined?") == "code_lookup"
    assert classify_question("How does shipping work?") == "explanation"
    assert classify_question("Give an overview of the architecture") == "architecture"
    # "references" and "using" as plain words do not make a relationship question; asking what references X does
    assert classify_question("How are circular references detected?") == "explanation"
    assert classify_question("How is the cache built using a dict?") == "explanation"
    assert classify_question("Which functions reference parse_args?") == "relationship"
    assert classify_question("parcel weights") == "general"
    assert question_identifiers("Where is `ship_parcel` used by ParcelStore.add() and json.dumps?") == [
        "ship_parcel", "ParcelStore.add", "json.dumps"]
    # an acronym is a word of the domain, not a name: its namesakes (a class JSON) were never the answer (natural sets)
    assert question_identifiers("How does the HTTP output read JSON from a Counter or an OSError?") == [
        "Counter", "OSError"]
    assert question_identifiers("Where is `JSON` parsed?") == ["JSON"]  # written as code, it is one


def test_sparse_bm25_equals_rank_bm25_on_a_real_corpus(store):
    rows = store._query("SELECT file_path, symbol_name, text FROM chunks ORDER BY rowid")
    corpus = [document_terms(r["file_path"], r["symbol_name"], r["text"]) for r in rows]
    reference, ours = BM25Okapi(corpus), SparseBM25.build(corpus)
    restored = SparseBM25.from_bytes(ours.to_bytes())
    for question in ("how are parcels shipped to a zone", "parse_weight kg", "ParcelStore add add", "zzz unknown"):
        query = code_tokens(question)
        expected = reference.get_scores(query)
        assert np.allclose(ours.scores(query), expected, rtol=0, atol=1e-12)
        assert np.array_equal(restored.scores(query), ours.scores(query))


def test_retrieval_bm25_scores_are_the_reference_numbers(store):
    index = load_index(store, resolve_repo(store, None))
    docs = store._query("SELECT rowid, file_path, symbol_name, text FROM chunks")
    by_rowid = {r["rowid"]: r for r in docs}
    corpus = [document_terms(by_rowid[m.rowid]["file_path"], m.symbol_name, by_rowid[m.rowid]["text"])
              for m in index.docs]
    question = "parsing the weight of a parcel"
    reference = BM25Okapi(corpus).get_scores(query_variants(code_tokens(question)))
    for hit in retrieve(store, question, k=20):
        if "bm25" in hit.method_scores:
            d = index.by_chunk[hit.chunk_id]
            assert hit.method_scores["bm25"] == pytest.approx(reference[d] * index.prior[d], abs=1e-6)


def test_symbol_match_ranks_the_definition_first(store):
    hits = retrieve(store, "What does parse_weight return?", k=5)
    assert hits[0].symbol_name == "parse_weight" and hits[0].method_ranks["symbol"] == 1
    assert "parse_weight" in hits[0].matches["symbol"]
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(h.score > 0 and h.method in h.method_ranks for h in hits)


def test_fuzzy_symbol_and_path_matching(store):
    hits = retrieve(store, "How does ParcelStor.ad work?", k=5)  # misspelled identifiers
    assert any(h.symbol_name == "ParcelStore.add" and "symbol" in h.method_ranks for h in hits)
    hits = retrieve(store, "Where is the routing code?", k=5)
    path_hits = [h for h in hits if "path" in h.method_ranks]
    assert path_hits and path_hits[0].file_path == "routing.py"


def test_graph_expansion_finds_callers_and_callees(store):
    hits = retrieve(store, "What calls ship_parcel?", k=10)
    callers = {h.symbol_name for h in hits if h.relation == "caller"}
    assert callers == {"ParcelStore.add", "route_everything"}
    assert all("graph" in h.method_ranks for h in hits if h.relation)
    hits = retrieve(store, "What does ship_parcel call?", k=10)
    assert "parse_weight" in {h.symbol_name for h in hits if h.relation == "callee"}


def test_tests_are_found_when_asked_for(store):
    hits = retrieve(store, "Which test checks parse_weight?", k=5)
    assert "tests/test_inventory.py" in {h.file_path for h in hits}


def test_index_is_cached_per_version(store, tmp_path):
    retrieve(store, "parcel", k=3)
    repo = resolve_repo(store, None)
    assert load_index(store, repo) is load_index(store, repo)
    root = store._query("SELECT root FROM repos")[0]["root"]
    with open(f"{root}/routing.py", "a") as fh:
        fh.write("\n\ndef brand_new_helper():\n    return 1\n")
    index_repository(store, root)
    repo2 = resolve_repo(store, None)
    assert repo2.index_version == repo.index_version + 1
    assert retrieve(store, "brand_new_helper", k=1)[0].symbol_name == "brand_new_helper"
    assert load_index(store, repo2) is not load_index(store, repo)


def test_stale_search_index_is_rebuilt(store):
    store._conn.execute("DELETE FROM search_index")
    retrieve_module._CACHE.clear()
    assert retrieve(store, "parse_weight", k=1)[0].symbol_name == "parse_weight"
    assert store._scalar("SELECT count(*) FROM search_index") == 1


def test_k_limits_and_empty_question(store):
    assert len(retrieve(store, "zone weight", k=2)) == 2
    assert retrieve(store, "???", k=5) == []


def test_baseline_is_plain_bm25_over_40_line_windows(store):
    hits = baseline_retrieve(store, "note line 55", k=3)
    assert hits[0].file_path == "notes.txt" and (hits[0].start_line, hits[0].end_line) == (41, 80)
    assert all(h.method == "bm25_window" and h.end_line - h.start_line < WINDOW_LINES for h in hits)
    assert hits[0].text.splitlines()[0] == "note line 41"
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_the_definitions_top_hits_use_join_from_other_files(tmp_path):
    """A question about a class finds the class by its words; its base class and the error it raises (in other files,
    sharing no word with the question) join as graph hits, each saying which hit uses it."""
    repo = tmp_path / "fleet"
    repo.mkdir()
    (repo / "carriers.py").write_text("class Carrier:\n    capacity = 0\n\n    def describe(self):\n"
                                      "        return 'a carrier'\n")
    (repo / "problems.py").write_text("class Refused(Exception):\n    '''Raised when a shipment is turned away.'''\n")
    (repo / "truck.py").write_text(
        "from carriers import Carrier\nfrom problems import Refused\n\n\nclass Truck(Carrier):\n"
        "    '''A truck loads parcels up to its axle limit.'''\n\n    def load(self, parcel):\n"
        "        if parcel.weight > self.axle_limit:\n            raise Refused(parcel)\n"
        "        self.parcels.append(parcel)\n")
    (repo / "ship.py").write_text("def sail(boat):\n    return boat.harbour\n")
    with open_store(tmp_path / "store.db") as s:
        index_repository(s, repo)
        hits = retrieve(s, "How does a truck load parcels over its axle limit?", k=10)
    by_symbol = {h.symbol_name: h for h in hits}
    assert hits[0].file_path == "truck.py"
    carrier, refused = by_symbol["Carrier"], by_symbol["Refused"]
    assert carrier.matches["graph"] == "subclassed by Truck" and carrier.relation == "callee"
    assert refused.matches["graph"] == "called by Truck.load" and "graph" in refused.method_ranks
    assert "sail" not in by_symbol  # used by nothing that matched


def test_names_used_through_imports_join_once_per_file(tmp_path):
    """A hit that uses an imported class without calling it (an annotation, `module.Name`) brings that class in; a long
    class of several chunks joins as one hit, its best-matching chunk, so it does not fill the list."""
    repo = tmp_path / "fleet"
    (repo / "units").mkdir(parents=True)
    (repo / "units" / "__init__.py").write_text("")
    (repo / "units" / "weights.py").write_text("class Kilograms:\n    '''A weight.'''\n    amount = 0\n")
    parts = "".join(f"    field_{i} = {i}\n\n    def entry_{i}(self):\n        return {i}\n\n" for i in range(3))
    (repo / "manifest.py").write_text("class Manifest:\n    '''Entries of a shipment.'''\n\n" + parts)
    (repo / "truck.py").write_text(
        "import units.weights as weights\nfrom manifest import Manifest\n\n\n"
        "def check_axle_limit(parcel, manifest: Manifest) -> weights.Kilograms:\n"
        "    '''The axle limit check a truck runs before it loads a parcel.'''\n    return parcel.weight\n")
    with open_store(tmp_path / "store.db") as s:
        index_repository(s, repo)
        assert s._conn.execute("SELECT count(*) FROM chunks WHERE symbol_name = 'Manifest'").fetchone()[0] > 1
        hits = retrieve(s, "How does the axle limit check work before a truck loads?", k=20)
    assert hits[0].symbol_name == "check_axle_limit"
    graph = [h for h in hits if "graph" in h.method_ranks]
    assert [h.symbol_name for h in graph if h.symbol_name == "Manifest"] == ["Manifest"]
    by_symbol = {h.symbol_name: h for h in graph}
    assert by_symbol["Manifest"].matches["graph"] == "used by check_axle_limit"
    assert by_symbol["Kilograms"].matches["graph"] == "used by check_axle_limit"


def test_imported_mentions_read_names_and_module_attributes():
    from gradedesk.core.retrieval.graph import _imported_mentions

    text = "def f(x: Manifest) -> weights.Kilograms:\n    return os.path.join(other.Thing, weights.Tonnes.MAX)\n"
    assert _imported_mentions(text, {"Manifest", "weights"}) == ["Manifest", "Kilograms", "Tonnes"]


def test_class_bases_are_read_from_the_class_line():
    from gradedesk.core.retrieval.graph import _bases

    assert _bases("@dataclass\nclass A(B, pkg.C, Generic[T], metaclass=Meta):\n    x = 1\n") == ["B", "C", "Generic"]
    assert _bases("class A(\n    B,\n    C,\n):\n    pass\n") == ["B", "C"]
    assert _bases("class A:\n    pass\n") == []


def test_a_file_name_in_a_question_is_a_file_not_an_identifier(tmp_path):
    from gradedesk.core.text.question import analyse_question

    info = analyse_question("Which function opens store.db and reads core/cli/main.py, unlike json.dumps?")
    assert info.identifiers == ("json.dumps",) and info.files == ("store.db", "core/cli/main.py")
    repo = tmp_path / "shop"
    (repo / "conf").mkdir(parents=True)
    (repo / "conf" / "settings.toml").write_text("[shop]\nname = 'corner'\n")
    (repo / "main.py").write_text("def open_shop():\n    return 1\n")
    with open_store(tmp_path / "store.db") as s:
        index_repository(s, repo)
        hits = retrieve(s, "What is set in settings.toml?", k=5)
    assert hits[0].file_path == "conf/settings.toml"
    assert hits[0].matches["path"] == "file 'settings.toml' is named in the question"


def test_bm25_reasons_name_the_question_words_not_their_index_forms(store):
    """BM25 matches `weight` for "weights" (the plural cut off); the reason says 'weights', as the question wrote it."""
    hits = retrieve(store, "Which zones does ship_parcel apply, and what weights?", k=10)
    notes = " ".join(h.matches.get("bm25", "") for h in hits)
    assert "'weights'" in notes and "'zones'" in notes and "'weight'" not in notes


def test_bm25_reasons_name_a_past_tense_word_as_written_once(tmp_path):
    """"pushed" is searched as `pushe` and `push` too (query_variants); the reason says 'pushed', once, never a stem."""
    repo = tmp_path / "ctx"
    repo.mkdir()
    (repo / "ctx.py").write_text("def push(ctx):\n    ctx.pushed = True\n    return ctx\n")
    for n in range(4):
        (repo / f"other{n}.py").write_text(f"def other_{n}():\n    return {n}\n")
    with open_store(tmp_path / "store.db") as s:
        index_repository(s, repo)
        hits = retrieve(s, "where is the request context pushed?", k=5)
    note = next(h.matches["bm25"] for h in hits if h.symbol_name == "push")
    assert note.count("'pushed'") == 1 and "'pushe'" not in note and "'push'" not in note
