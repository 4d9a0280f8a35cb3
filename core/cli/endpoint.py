"""The flags that name an OpenAI-compatible endpoint, shared by `run` (the answer model) and `judge` (the judge)."""

from __future__ import annotations

import argparse

from gradedesk.core.config import DEFAULT_API_KEY_ENV


def add_endpoint_arguments(p: argparse.ArgumentParser, model_help: str, *, max_tokens: int,
                           max_tokens_what: str) -> None:
    p.add_argument("--model", default=None, help=model_help)
    p.add_argument("--base-url", default=None, metavar="URL",
                   help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (default with --model: OpenAI)")
    p.add_argument("--api-key-env", default=DEFAULT_API_KEY_ENV, metavar="VAR",
                   help="environment variable holding the API key (never stored; optional for local endpoints)")
    p.add_argument("--concurrency", type=int, default=4, metavar="N", help="requests in flight (default 4)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="per request (default 60)")
    p.add_argument("--max-retries", type=int, default=4, metavar="N", help="retries per call (default 4)")
    p.add_argument("--max-tokens", type=int, default=max_tokens, metavar="N",
                   help=f"most tokens the model may write for {max_tokens_what}; a reply cut there is recorded as "
                        f"truncated (default {max_tokens})")
    p.add_argument("--prices", default=None, metavar="FILE.json",
                   help='price table override: {"model": {"input": USD per 1M, "output": USD per 1M}}')
    p.add_argument("--price", default=None, metavar="IN,OUT",
                   help="price of --model in USD per 1M input and output tokens, e.g. 0.15,0.60")


def provider_from_args(args: argparse.Namespace, tokenizer: str | None = None):
    """The provider the flags name (the offline one when there is neither --model nor --base-url)."""
    from gradedesk.core.errors import UserError
    from gradedesk.core.providers import make_provider

    if args.concurrency < 1:
        raise UserError("--concurrency: must be at least 1")
    if args.max_tokens < 1:
        raise UserError(f"--max-tokens: must be at least 1, got {args.max_tokens}")
    return make_provider(args.model, args.base_url, api_key_env=args.api_key_env, timeout=args.timeout,
                         max_retries=args.max_retries, concurrency=args.concurrency, prices_file=args.prices,
                         price=args.price, tokenizer=tokenizer)
