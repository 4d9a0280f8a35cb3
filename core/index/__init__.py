"""A repository in, an index in the store out: which files count (repofiles.py: .gitignore, vendored and binary files
skipped), symbol-aware chunks with exact line ranges (chunking.py), exact token counts, call and import references, and
the BM25 postings (bm25.py) that retrieval reads; incremental (indexer.py)."""
