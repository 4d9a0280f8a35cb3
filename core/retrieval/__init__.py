"""A question and an indexed store in, ranked hits out: hybrid retrieval (BM25, symbol, path and call-graph matches,
fused by reciprocal rank fusion, each hit with its per-method ranks, scores and what matched) and the baseline (plain
BM25 over 40-line windows) it is measured against."""
