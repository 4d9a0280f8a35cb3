"""Context compilation and bundles: exact budgets, dedup, slicing with exact line ranges, roles, reasons, coverage."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tests.fixtures.sample_repo import make_sample_repo

from gradedesk.core.evidence.bundle import EVIDENCE_ROLES, validate
from gradedesk.core.index.chunking import split_lines
from gradedesk.core.evidence.compile import NEAR_FIRST_BUDGET, ask, build_bundle, compile_context
from gradedesk.core.errors import UserError
from gradedesk.core.index.indexer import index_repository
from gradedesk.core.retrieval.hybrid import retrieve
from gradedesk.core.store.connection import open_store
from gradedesk.core.text.tokens import count_tokens


@pytest.fixture
def indexed(tmp_path):
    repo = make_sample_repo(tmp_path / "parcels")
    long_body = "\n".join(f"    step_{i} = compute_step({i})" for i in range(300))
    (repo / "pipeline.py").write_text(
        f"def run_pipeline(config):\n{long_body}\n    checksum = verify_checksum(step_150)\n"
        f"{long_body.replace('step_', 'tail_')}\n    return checksum\n")
    with open_store(tmp_path / "store.db") as s:
        index_repository(s, repo)
        yield s, repo


@pytest.mark.parametrize("budget", [150, 600, 1500, 4000])
def test_bundles_validate_and_fit_the_exact_budget(indexed, budget):
    store, _ = indexed
    bundle = ask(store, "How does ship_parcel compute the weight and zone?", budget=budget)
    assert validate(bundle) == []
    assert bundle.total_tokens == count_tokens(bundle.to_prompt_context()) <= budget
    assert all(s.evidence_role in EVIDENCE_ROLES and s.selection_reason for s in bundle.snippets)


def test_dedup_by_content_not_chunk_id(indexed):
    store, _ = indexed
    hits = retrieve(store, "route_everything parcels", k=20)
    linked = [h for h in hits if h.file_path in ("routing.py", "link_in.py") and h.symbol_name == "route_everything"]
    assert len(linked) == 2 and linked[0].chunk_id != linked[1].chunk_id  # the symlink repeats the same code
    pack = compile_context("route_everything parcels", hits, 4000)
    kept = [s for s in pack.snippets if s.symbol_name == "route_everything"]
    assert len(kept) == 1
    assert any("same content" in w for w in pack.warnings)


def test_a_long_definition_is_cut_to_its_signature_and_first_lines_with_exact_ranges(indexed):
    store, repo = indexed
    question = "Where does run_pipeline call verify_checksum?"
    hits = retrieve(store, question, k=5)
    pack = compile_context(question, hits, 1000)
    snippet = next(s for s in pack.snippets if s.symbol_name == "run_pipeline")
    lines = split_lines((repo / "pipeline.py").read_text())
    assert snippet.text == "\n".join(lines[snippet.start_line - 1:snippet.end_line])
    assert snippet.text.startswith("def run_pipeline(config):") and snippet.end_line - snippet.start_line < 300
    assert "to its first" in snippet.selection_reason
    assert any("run_pipeline" in w and "cut to lines" in w for w in pack.warnings)
    bundle = build_bundle(pack)
    assert validate(bundle) == [] and any("cut to fit" in n for n in bundle.coverage_notes)


def test_roles_reasons_and_coverage_for_a_relationship_question(indexed):
    store, _ = indexed
    bundle = ask(store, "What calls ship_parcel?", budget=3000)
    roles = {s.symbol_name: s.evidence_role for s in bundle.snippets}
    assert roles["ship_parcel"] == "definition"
    assert roles["ParcelStore.add"] == "caller" and roles["route_everything"] == "caller"
    caller = next(s for s in bundle.snippets if s.symbol_name == "ParcelStore.add")
    assert "call graph" in caller.selection_reason and "calls ship_parcel()" in caller.selection_reason
    assert bundle.question_type == "relationship"
    assert "graph" in bundle.retrieval_strategies_used
    assert any(n.startswith("definition of ship_parcel found (inventory.py:") for n in bundle.coverage_notes)
    assert any(n.startswith("2 callers found") for n in bundle.coverage_notes)


def test_coverage_says_what_is_missing(indexed):
    store, _ = indexed
    bundle = ask(store, "What calls computeRouteHash?", budget=2000)
    assert any(n.startswith("definition of computeRouteHash found") for n in bundle.coverage_notes)
    assert "no callers found in the index" in bundle.coverage_notes
    bundle = ask(store, "Where is teleport_parcel defined?", budget=2000)
    assert "no definition of teleport_parcel found in the evidence" in bundle.coverage_notes


def test_coverage_says_whether_each_file_the_question_names_is_in_the_evidence(indexed):
    store, _ = indexed
    bundle = ask(store, "What does routing.py do with the weight, and what is in settings.toml?", budget=2000)
    found = [n for n in bundle.coverage_notes if n.startswith("file routing.py is in the evidence (routing.py, lines ")]
    assert len(found) == 1
    # settings.toml (like a user's store.db) is no file of the repository: nothing the evidence could have held
    assert "file settings.toml, named in the question, is not a file of the indexed repository" \
        in bundle.coverage_notes
    assert not any("not in the evidence" in n for n in bundle.coverage_notes)
    bundle = ask(store, "What is written in notes.txt?", budget=40)  # too small for any snippet of it
    assert "file notes.txt was retrieved but did not fit the token budget" in bundle.coverage_notes


def test_test_role_and_no_evidence(indexed):
    store, _ = indexed
    bundle = ask(store, "Which test covers parse_weight?", budget=2000)
    assert any(s.evidence_role == "test" and s.file_path == "tests/test_inventory.py" for s in bundle.snippets)
    empty = build_bundle(compile_context("nothing", [], 500))
    assert empty.snippets == [] and empty.total_tokens == 0 and validate(empty) == []
    assert empty.coverage_notes == ["no evidence for this question was found in the index"]


def test_budget_drops_are_warned_and_recorded(indexed):
    store, _ = indexed
    hits = retrieve(store, "parcel weight zone store", k=20)
    pack = compile_context("parcel weight zone store", hits, 200)
    assert pack.total_tokens <= 200 and pack.dropped
    assert any("did not fit the 200-token budget" in w for w in pack.warnings)


def test_hits_from_another_tokenizer_are_recounted(indexed):
    store, _ = indexed
    hits = [replace(h, token_count=1) for h in retrieve(store, "parse_weight", k=3)]
    bundle = build_bundle(compile_context("parse_weight", hits, 800, tokenizer="cl100k_base"))
    assert bundle.tokenizer == "tiktoken/cl100k_base" and validate(bundle) == []


def test_bad_budget_is_a_user_error():
    with pytest.raises(UserError, match="token budget"):
        compile_context("q", [], 0)


def _weigh_parcel_cut(tmp_path, scale_py: str):
    """The weigh_parcel snippet of a 600-token bundle over a repository of scale.py (this text) and four small files,
    with scale.py's lines."""
    repo = tmp_path / "scale"
    repo.mkdir()
    (repo / "scale.py").write_text(scale_py)
    for n in range(4):
        (repo / f"other{n}.py").write_text(f"def other_{n}():\n    return {n}\n")
    with open_store(tmp_path / "scale.db") as store:
        index_repository(store, repo)
        pack = compile_context("weigh_parcel", retrieve(store, "weigh_parcel", k=5), 600)
    assert validate(build_bundle(pack)) == []
    [s] = [s for s in pack.snippets if s.symbol_name == "weigh_parcel"]
    return s, split_lines(scale_py)


def test_a_cut_leaves_a_long_docstring_out_and_every_line_keeps_its_number(tmp_path):
    """Prose is not what a cut keeps: the docstring's first line stays, an elision line names the lines left out, and
    blank lines hold their places, so the code after it sits at its own line numbers."""
    doc = "\n".join(f"    Paragraph line {i} about parcels in general." for i in range(30))
    body = "\n".join(f"    weight_{i} = measure_parcel({i})" for i in range(80))
    s, source = _weigh_parcel_cut(tmp_path, f'import os\n\n\ndef weigh_parcel(parcel):\n    """Weigh a parcel.\n\n{doc}\n'
                                            f'    """\n{body}\n    return weight_0\n')
    kept = s.text.split("\n")
    assert kept[0] == "def weigh_parcel(parcel):" and kept[1] == '    """Weigh a parcel.'
    assert kept[2] == "    … docstring lines 6-37 left out" and all(line == "" for line in kept[3:34])
    assert kept[34] == "    weight_0 = measure_parcel(0)"
    for n, line in enumerate(kept[34:], start=s.start_line + 34):
        assert line == source[n - 1]
    assert "docstring lines 6-37 left out" in s.selection_reason and s.end_line < 120


def test_a_cut_leaves_comment_lines_out_and_says_how_many(tmp_path):
    """A comment line is prose too: a definition's cut shows a blank line in its place (later lines keep their numbers)
    and its reason counts the comment lines left out; code lines stay as the file has them."""
    body = "\n".join(f"    # why step {i} is here\n    weight_{i} = measure_parcel({i})" for i in range(60))
    s, source = _weigh_parcel_cut(tmp_path, f"def weigh_parcel(parcel):\n{body}\n    return weight_0\n")
    kept = s.text.split("\n")
    assert not any(line.lstrip().startswith("#") for line in kept)
    for n, line in enumerate(kept, start=s.start_line):
        assert line == ("" if source[n - 1].lstrip().startswith("#") else source[n - 1])
    comments = sum(source[n - 1].lstrip().startswith("#") for n in range(s.start_line, s.end_line + 1))
    assert comments > 5 and f"{comments} comment lines left out" in s.selection_reason


def test_baseline_windows_compile_into_a_valid_bundle(indexed):
    from gradedesk.core.retrieval.baseline import baseline_retrieve

    store, _ = indexed
    bundle = build_bundle(compile_context("note line 55", baseline_retrieve(store, "note line 55", k=5), 1000))
    assert validate(bundle) == [] and bundle.retrieval_strategies_used == ["bm25_window"]
    assert bundle.snippets[0].evidence_role == "context" and bundle.snippets[0].retrieval_method == "bm25_window"



def _parcel_hits(tmp_path, first_file: str, text: str, others: str) -> list:
    """The hits for "parcel" in a toy repository: `first_file` holding `text`, and one parcel function per letter of
    `others` in a file of its own (among files without the word, so its BM25 idf is positive)."""
    repo = tmp_path / "depot"
    repo.mkdir()
    (repo / first_file).write_text(text)
    for name in others:
        (repo / f"{name}.py").write_text(f"def parcel_in_{name}():\n    return 'parcel in {name}'\n")
    for n in range(8):
        (repo / f"other{n}.py").write_text(f"def other_{n}():\n    return {n}\n")
    with open_store(tmp_path / "depot.db") as store:
        index_repository(store, repo)
        return [h for h in retrieve(store, "parcel", k=20) if h.symbol_name]


def test_breadth_from_a_best_hits_class_and_file_comes_before_the_rest(tmp_path):
    """The code that answers clusters: after the three best hits, the methods of a best hit's class, then the rest of
    its file, then other files, each in rank order."""
    cart = ("class Cart:\n    def add_parcel(self):\n        return 'parcel added'\n\n"
            "    def drop_parcel(self):\n        return 'parcel dropped'\n\n\n"
            "def weigh_parcel():\n    return 'parcel weighed'\n")
    hits = {h.symbol_name: h for h in _parcel_hits(tmp_path, "cart.py", cart, "bcd")}
    order = [hits[n] for n in ("Cart.add_parcel", "parcel_in_b", "parcel_in_c", "parcel_in_d", "weigh_parcel",
                               "Cart.drop_parcel")]
    ranked = [replace(h, rank=i) for i, h in enumerate(order, start=1)]
    pack = compile_context("parcel", ranked, 2000)
    assert [s.retrieval_rank for s in pack.snippets] == [1, 2, 3, 6, 5, 4]
    # from NEAR_FIRST_BUDGET up every top-10 hit comes before that breadth (compiler 8 kept the order above)
    roomy = compile_context("parcel", ranked, NEAR_FIRST_BUDGET)
    assert [s.retrieval_rank for s in roomy.snippets] == [1, 2, 3, 4, 5, 6]


def test_hits_are_kept_in_rank_order_and_the_named_subject_comes_first(tmp_path):
    """Hits go in rank order, the three best first, then breadth from the three best hits' files, then the rest; a
    question that names a definition has it right after the three best hits."""
    text = "".join(f"def parcel_{n}():\n    return 'parcel {n}'\n\n\n" for n in range(3))
    hits = _parcel_hits(tmp_path, "main.py", text, "bcde")
    main = sorted((h for h in hits if h.file_path == "main.py"), key=lambda h: h.start_line)
    others = sorted((h for h in hits if h.file_path != "main.py"), key=lambda h: h.file_path)
    order = [main[0], main[1], *others[:3], main[2], others[3]]
    ranked = [replace(h, rank=i) for i, h in enumerate(order, start=1)]
    pack = compile_context("parcel", ranked, 2000)
    assert [s.retrieval_rank for s in pack.snippets] == [1, 2, 3, 6, 4, 5, 7]  # 6 is in main.py, as 1 and 2 are
    named = compile_context("parcel_in_e", ranked, 2000)
    assert [s.retrieval_rank for s in named.snippets] == [1, 2, 3, 7, 6, 4, 5]  # the three best, then the subject


def test_breadth_beyond_the_best_files_goes_by_agreement_then_near_files_then_small_first_hits(tmp_path):
    """After the subject: a top-10 hit two methods both rank in their top ten; then the top-10 hits' files; then, of
    a file no top-10 hit is in, its best-ranked small hit (the file shown cheaply), even behind a large first hit;
    then the rest, each in rank order. Compiler 7 took these in plain rank order (the last ones: 4-10, 11, 12, 13);
    compiler 9 kept main.py's small 13 behind its large 11."""
    body = "\n".join(f"    weight_{i} = measure({i}, scale={i * 3}, unit='kg')" for i in range(30))
    main = f"def parcel_big():\n{body}\n    return weight_0\n\n\ndef parcel_tail():\n    return 'parcel tail'\n"
    hits = {h.symbol_name: h for h in _parcel_hits(tmp_path, "main.py", main, "bcdefghijkl")}
    assert hits["parcel_big"].token_count > 150 >= hits["parcel_in_l"].token_count
    order = [hits[f"parcel_in_{c}"] for c in "bcdefghijk"] + [hits[n] for n in ("parcel_big", "parcel_in_l",
                                                                                  "parcel_tail")]
    ranked = [replace(h, rank=i, method_ranks={"bm25": i}) for i, h in enumerate(order, start=1)]
    ranked[9] = replace(ranked[9], method_ranks={"bm25": 10, "vector": 2})  # both methods put rank 10 in their top ten
    pack = compile_context("how are things shipped?", ranked, 3000)
    assert [s.retrieval_rank for s in pack.snippets] == [1, 2, 3, 10, 4, 5, 6, 7, 8, 9, 12, 13, 11]
