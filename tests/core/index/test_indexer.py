"""Indexing a real repository on disk into a real store: walking, chunking, refs, token counts, incremental runs."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from tests.fixtures.sample_repo import make_sample_repo

import gradedesk.core.index.indexer as index_module
from gradedesk.core.text.hashing import content_hash
from gradedesk.core.index.chunking import chunk_text, split_lines
from gradedesk.core.errors import UserError
from gradedesk.core.index.indexer import index_repository, resolve_repo
from gradedesk.core.index.repofiles import list_files
from gradedesk.core.store.connection import open_store
from gradedesk.core.text.tokens import count_tokens


@pytest.fixture
def repo(tmp_path):
    return make_sample_repo(tmp_path / "parcels")


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "store.db") as s:
        yield s


def chunks_of(store, path):
    return store._query("SELECT * FROM chunks WHERE file_path = ? ORDER BY start_line", (path,))


def test_walk_respects_gitignore_vendored_binaries_and_symlinks(repo):
    files = list_files(repo)
    assert "inventory.py" in files and "docs/guide.rst" in files and "link_in.py" in files
    for skipped in ("ignored_dir/secret.py", "debug.log", "node_modules/pkg/index.py", "link_out.py"):
        assert skipped not in files


def test_index_skips_binary_and_huge_files(repo, store):
    report = index_repository(store, repo)
    paths = {r["path"] for r in store._query("SELECT path FROM files WHERE language != 'skipped'")}
    skipped = {r["path"] for r in store._query("SELECT path FROM files WHERE language = 'skipped'")}
    assert skipped == {"image.bin", "huge.txt"} and "notes.txt" in paths
    assert not store._query("SELECT 1 FROM chunks WHERE file_path IN ('image.bin', 'huge.txt')")
    assert report.files_indexed == len(paths) and report.files_skipped == 2
    assert report.files_seen == report.files_indexed + report.files_skipped


def test_git_checkout_uses_git_ls_files(repo):
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "extra.log").write_text("ignored by the root .gitignore\n")
    files = list_files(repo)
    assert "inventory.py" in files and "extra.log" not in files and "ignored_dir/secret.py" not in files


def test_python_chunks_have_exact_ranges_symbols_and_kinds(repo, store):
    index_repository(store, repo)
    lines = split_lines((repo / "inventory.py").read_text())
    rows = chunks_of(store, "inventory.py")
    for row in rows:  # the stored text is exactly the file's lines in the stored range
        assert row["text"] == "\n".join(lines[row["start_line"] - 1:row["end_line"]])
        assert row["content_hash"] == content_hash(row["text"])
        assert row["token_count"] == count_tokens(row["text"]) and row["tokenizer"] == "tiktoken/o200k_base"
    by_symbol = {(r["symbol_name"], r["kind"]): r for r in rows}
    ship = by_symbol[("ship_parcel", "function")]
    assert lines[ship["start_line"] - 1] == "@staticmethod"  # decorators belong to the definition
    assert ("ParcelStore.add", "method") in by_symbol
    assert ("ParcelStore.Audit.count_parcels", "method") in by_symbol
    header = by_symbol[("ParcelStore", "class")]
    assert header["text"].startswith("class ParcelStore:") and "kind = \"store\"" in header["text"]
    module = [r for r in rows if r["kind"] == "module"]
    assert module and "import json" in module[0]["text"] and "MAX_WEIGHT = 30" in module[0]["text"]


def test_markdown_rst_text_and_unparsable_python(repo, store):
    index_repository(store, repo)
    md = chunks_of(store, "README.md")
    assert [r["symbol_name"] for r in md] == ["Parcels", "Shipping zones", "Weights"]
    assert all(r["kind"] == "section" for r in md)
    rst = chunks_of(store, "docs/guide.rst")
    assert [r["symbol_name"] for r in rst] == ["Guide", "Installing"]
    notes = chunks_of(store, "notes.txt")
    assert [(r["start_line"], r["end_line"]) for r in notes] == [(1, 40), (41, 80), (81, 90)]
    assert [r["kind"] for r in chunks_of(store, "broken.py")] == ["window"]


def test_refs_answer_what_calls(repo, store):
    index_repository(store, repo)
    callers = store._query(
        "SELECT DISTINCT c.symbol_name FROM symbol_refs r JOIN chunks c USING (chunk_id) "
        "WHERE r.name = 'ship_parcel' AND r.ref_kind = 'call' ORDER BY 1")
    assert {r["symbol_name"] for r in callers} == {"ParcelStore.add", "route_everything"}
    imports = store._query("SELECT full_name FROM symbol_refs WHERE ref_kind = 'import' AND name = 'ship_parcel'")
    assert {"inventory.ship_parcel"} <= {r["full_name"] for r in imports}
    line = store._scalar("SELECT line FROM symbol_refs r JOIN chunks c USING (chunk_id) "
                        "WHERE r.name = 'parse_weight' AND c.symbol_name = 'ship_parcel'")
    assert split_lines((repo / "inventory.py").read_text())[line - 1].strip().startswith("weight = parse_weight(")


def test_chunk_ids_are_stable_across_stores(repo, tmp_path):
    ids = []
    for n in range(2):
        with open_store(tmp_path / f"s{n}.db") as s:
            index_repository(s, repo)
            ids.append([r["chunk_id"] for r in s._query("SELECT chunk_id FROM chunks ORDER BY file_path, start_line")])
    assert ids[0] == ids[1] and len(set(ids[0])) == len(ids[0])


def test_incremental_reindex(repo, store, monkeypatch):
    first = index_repository(store, repo)
    reads = []
    real = index_module.read_text_file
    monkeypatch.setattr(index_module, "read_text_file", lambda p: reads.append(p) or real(p))
    second = index_repository(store, repo)
    assert second.files_indexed == 0 and second.files_removed == 0
    assert second.files_unchanged == first.files_indexed
    assert reads == [] and second.files_skipped == 2  # nothing unchanged is read again, binaries neither
    version = resolve_repo(store, None).index_version
    assert resolve_repo(store, None).index_version == version  # nothing changed: same version

    before = {r["chunk_id"] for r in chunks_of(store, "inventory.py")}
    stat = os.stat(repo / "inventory.py")
    os.utime(repo / "inventory.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))  # touched, same bytes
    touched = index_repository(store, repo)
    assert touched.files_indexed == 0 and {r["chunk_id"] for r in chunks_of(store, "inventory.py")} == before

    with open(repo / "routing.py", "a") as fh:
        fh.write("\n\ndef late_addition():\n    return route_everything([])\n")
    (repo / "notes.txt").unlink()
    third = index_repository(store, repo)
    assert (third.files_indexed, third.files_removed) == (2, 1)  # routing.py and link_in.py, its symlink
    assert not chunks_of(store, "notes.txt")
    assert "late_addition" in {r["symbol_name"] for r in chunks_of(store, "routing.py")}
    assert resolve_repo(store, None).index_version == version + 1
    assert store._scalar("SELECT count(*) FROM symbol_refs r LEFT JOIN chunks c USING (chunk_id) "
                        "WHERE c.chunk_id IS NULL") == 0


def test_several_repositories_in_one_store(repo, store, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "solo.py").write_text("def solo():\n    return 1\n")
    index_repository(store, repo)
    index_repository(store, other, name="second")
    assert resolve_repo(store, "second").name == "second"
    with pytest.raises(UserError, match="choose one with --repo"):
        resolve_repo(store, None)
    with pytest.raises(UserError, match="no repository named 'nope'.*parcels"):
        resolve_repo(store, "nope")
    assert store._scalar("SELECT count(DISTINCT repo_id) FROM chunks") == 2


def test_bad_root_and_empty_store(store, tmp_path):
    with pytest.raises(UserError, match="not a folder"):
        index_repository(store, tmp_path / "missing")
    with pytest.raises(UserError, match="no repository indexed"):
        resolve_repo(store, None)


def _many_files(root):
    root.mkdir()
    for n in range(12):
        (root / f"m{n}.py").write_text(f"import os\n\ndef f{n}(x):\n    return g{n}(os.path.join(x))\n\n\n"
                                       f"class C{n}:\n    def m(self):\n        return f{n}(1)\n")
    (root / "notes.md").write_text("# Title\n\nparcel routing notes\n")
    return root


def _index_tables(store) -> dict[str, list]:
    """Every row the index writes, in row order (ids and rowids included)."""
    return {table: store._conn.execute(sql).fetchall() for table, sql in (
        ("files", "SELECT id, path, size, mtime_ns, sha256, language FROM files ORDER BY id"),
        ("chunks", "SELECT rowid, * FROM chunks ORDER BY rowid"),
        ("symbol_refs", "SELECT rowid, * FROM symbol_refs ORDER BY rowid"),
        ("search_index", "SELECT repo_id, index_version, analyzer, doc_rowids, data FROM search_index"))}


def test_streamed_parallel_index_writes_the_same_store_as_the_serial_one(tmp_path, monkeypatch):
    root = _many_files(tmp_path / "many")
    (root / "gone.py").write_text("x = 1\n")
    real = index_module.read_text_file
    monkeypatch.setattr(index_module, "read_text_file",  # the forked workers inherit it
                        lambda p: real(p) if not p.endswith("gone.py") else (_ for _ in ()).throw(
                            PermissionError(13, "Permission denied")))
    tables, ticks, reports = [], [], []
    for parallel_min in (1000, 4):
        monkeypatch.setattr(index_module, "PARALLEL_MIN_FILES", parallel_min)
        with open_store(tmp_path / f"p{parallel_min}.db") as s:
            ticks.append([])
            reports.append(index_repository(s, root, progress=lambda done, total, path: ticks[-1].append((done, path))))
            tables.append(_index_tables(s))
    assert tables[0] == tables[1] and len(tables[0]["chunks"]) == 49 and len(tables[0]["symbol_refs"]) == 48
    assert ticks[0] == ticks[1] == [(n, p) for n, p in enumerate(sorted(p.name for p in root.iterdir()), start=1)]
    assert reports[0].unreadable == reports[1].unreadable == {"gone.py": "Permission denied"}


def test_a_first_index_stores_the_postings_collected_as_files_came(tmp_path, monkeypatch):
    from gradedesk.core.index.bm25 import SparseBM25
    from gradedesk.core.index.indexer import build_search_index

    root = _many_files(tmp_path / "many")
    monkeypatch.setattr(index_module, "PARALLEL_MIN_FILES", 4)
    built = []
    real = SparseBM25.build_from_counts.__func__
    monkeypatch.setattr(SparseBM25, "build_from_counts", classmethod(lambda cls, c: built.append(1) or real(cls, c)))
    with open_store(tmp_path / "s.db") as s:
        index_repository(s, root)
        assert built == []  # not built again from the counts after the last file
        collected = _index_tables(s)["search_index"]
        with s.transaction():
            build_search_index(s, 1)  # afresh, from the stored chunks' text
        assert built == [1] and _index_tables(s)["search_index"] == collected


def test_an_interrupted_index_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    root = _many_files(tmp_path / "many")
    monkeypatch.setattr(index_module, "PARALLEL_MIN_FILES", 4)

    def interrupt_at(n):
        def progress(done, total, path):
            if done == n:
                raise KeyboardInterrupt  # what ^C raises in the main thread
        return progress

    with open_store(tmp_path / "s.db") as s:
        with pytest.raises(KeyboardInterrupt):  # files already written in this run go again
            index_repository(s, root, progress=interrupt_at(8))
        assert _index_tables(s) == {"files": [], "chunks": [], "symbol_refs": [], "search_index": []}
        assert s._scalar("SELECT count(*) FROM repos") == 0
        index_repository(s, root)
        before = _index_tables(s)
        for n in range(12):
            (root / f"m{n}.py").write_text(f"def h{n}():\n    return {n}\n")
        with pytest.raises(KeyboardInterrupt):
            index_repository(s, root, progress=interrupt_at(10))
        assert _index_tables(s) == before and resolve_repo(s, None).index_version == 1


def test_chunk_text_windows_long_module_runs():
    text = "\n".join(f"X{i} = {i}" for i in range(130))
    chunks = chunk_text("consts.py", text)
    assert [(c.start_line, c.end_line, c.kind) for c in chunks] == [(1, 60, "module"), (61, 120, "module"),
                                                                     (121, 130, "module")]


def test_another_tokenizer_recounts_every_chunk(repo, store):
    index_repository(store, repo)
    report = index_repository(store, repo, tokenizer="cl100k_base")
    assert report.files_unchanged == 0 and report.files_indexed > 0
    rows = store._query("SELECT text, token_count, tokenizer FROM chunks")
    assert {r["tokenizer"] for r in rows} == {"tiktoken/cl100k_base"}
    assert all(r["token_count"] == count_tokens(r["text"], "cl100k_base") for r in rows)
    assert resolve_repo(store, None).tokenizer == "tiktoken/cl100k_base"


def test_nested_gitignore_and_negation_without_git(tmp_path):
    root = tmp_path / "plain"
    for rel, text in {".gitignore": "*.tmp\n!keep.tmp\n/generated/\n", "keep.tmp": "kept\n", "drop.tmp": "x\n",
                      "generated/out.py": "x = 1\n", "pkg/.gitignore": "local_*.py\n", "pkg/local_cfg.py": "x = 1\n",
                      "pkg/mod.py": "x = 1\n", "other/generated/deep.py": "x = 1\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    files = list_files(root)
    assert "keep.tmp" in files and "pkg/mod.py" in files
    assert "other/generated/deep.py" in files  # "/generated/" is anchored to the root
    for ignored in ("drop.tmp", "generated/out.py", "pkg/local_cfg.py"):
        assert ignored not in files


def test_incremental_search_index_equals_a_fresh_build(repo, store, monkeypatch):
    import numpy as np
    from rank_bm25 import BM25Okapi

    from gradedesk.core.index.bm25 import SparseBM25
    from gradedesk.core.text.codeterms import code_tokens
    from gradedesk.core.index.indexer import build_search_index, document_terms

    for n in range(6):  # enough unchanged chunks that a one-file change updates the index in place
        (repo / f"extra{n}.py").write_text(f"def extra_{n}(parcel):\n    return parcel * {n}\n")
    index_repository(store, repo)
    with open(repo / "routing.py", "a") as fh:
        fh.write("\n\ndef reroute_parcel(parcel):\n    return route_everything([parcel])\n")
    (repo / "extra0.py").unlink()
    calls = []
    real = SparseBM25.updated
    monkeypatch.setattr(SparseBM25, "updated", lambda self, *a: calls.append(1) or real(self, *a))
    index_repository(store, repo)
    assert calls == [1]  # updated in place, not rebuilt

    def stored() -> tuple[list[int], SparseBM25]:
        rowids, data = store._conn.execute("SELECT doc_rowids, data FROM search_index").fetchone()
        return np.frombuffer(rowids, dtype=np.int64).tolist(), SparseBM25.from_bytes(data)

    rowids, updated = stored()
    texts = {r["rowid"]: r for r in store._query("SELECT rowid, file_path, symbol_name, text FROM chunks")}
    assert sorted(rowids) == sorted(texts)
    reference = BM25Okapi([document_terms(texts[r]["file_path"], texts[r]["symbol_name"], texts[r]["text"])
                           for r in rowids])
    with store.transaction():
        build_search_index(store, 1)
    fresh_rowids, fresh = stored()
    by_rowid = dict(zip(fresh_rowids, range(len(fresh_rowids))))
    for question in ("reroute a parcel", "parse_weight zone", "extra parcel"):
        query = code_tokens(question)
        got = updated.scores(query)
        assert np.allclose(got, reference.get_scores(query), rtol=0, atol=1e-12)
        assert np.allclose(got, fresh.scores(query)[[by_rowid[r] for r in rowids]], rtol=0, atol=1e-12)
