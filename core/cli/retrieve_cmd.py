"""gradedesk retrieve "question": the ranked hits of hybrid retrieval (or of the BM25 window baseline)."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.endpoint import add_embeddings_arguments

ORDER = 21


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("retrieve", parents=[common], help="show the ranked hits for a question",
                       description="Hybrid retrieval (BM25, symbol, path, call graph, and vector search with "
                                   "--embeddings-model; fused by RRF). --json prints "
                                   "the hits with their text, per-method ranks and scores; pipe it into "
                                   "`gradedesk context-pack build`.")
    p.add_argument("question")
    p.add_argument("--repo", help="repository name (default: the only one in the store)")
    p.add_argument("--k", type=int, default=10, help="number of hits (default 10)")
    p.add_argument("--baseline", action="store_true", help="plain BM25 over 40-line windows instead")
    add_embeddings_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.errors import UserError
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.endpoint import embedder_from_args
    from gradedesk.core.cli.output import info, print_json, print_table

    if args.k < 1:
        raise UserError(f"--k: must be at least 1, got {args.k}")
    embedder = embedder_from_args(args)
    if embedder and args.baseline:
        raise UserError("--baseline is plain BM25 over windows; it takes no --embeddings-model")
    with open_store(args.store, create=False) as store:
        from gradedesk.core.index.indexer import resolve_repo

        repo = resolve_repo(store, args.repo)
        if args.baseline:
            from gradedesk.core.retrieval.baseline import baseline_retrieve

            hits = baseline_retrieve(store, args.question, repo=repo, k=args.k)
        else:
            from gradedesk.core.retrieval.hybrid import retrieve
            from gradedesk.core.retrieval.vectors import embed_question

            vector = None
            if embedder:
                vector = embed_question(store, repo, embedder, args.question)
                info(f"question embedded with {vector.model} in {vector.seconds * 1000:.0f} ms")
            hits = retrieve(store, args.question, repo=repo, k=args.k, query_vector=vector)
        if not hits:
            from gradedesk.core.retrieval.no_hits import why_no_hits

            info(f"gradedesk: no hits: {why_no_hits(store, args.question, repo, args.repo is not None)}")
    if args.json:
        print_json({"question": args.question, "repo": args.repo, "k": args.k,
                    "retriever": "bm25_window" if args.baseline else "hybrid", "hits": [h.to_dict() for h in hits]})
    else:
        print_table(["rank", "score", "method", "location", "symbol", "tokens"],
                    [[h.rank, h.score, h.method, f"{h.file_path}:{h.start_line}-{h.end_line}", h.symbol_name,
                      h.token_count] for h in hits])
    return 0
