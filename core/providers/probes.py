"""What an endpoint is like, asked before a command's first real call: the probes and what they found.

A command that sends many calls wants to know, before it spends them, what the server does with them:

- which model it serves under the name (GET /models: the id it reports), how long a context it takes, where it says
  (vLLM's `max_model_len`, llama.cpp's `n_ctx`), and how many requests it computes at once (llama.cpp's `/props`
  `total_slots`; llama-cpp-python's server, which reports itself as `owned_by: "me"`, computes one at a time);
- whether its chat template keeps system messages (core/providers/system_role.py: two one-token calls, local
  endpoints only, since hosted APIs keep them);
- which structured-output form it takes, for commands whose replies have a shape (core/providers/structured.py: one
  one-token call per form, strongest first, until one is not rejected);
- how its count of a prompt's tokens relates to ours (`probe_counts`: two one-token calls cut from the command's
  first prompt, so their text is like the calls' own; its tokenizer and chat template are not ours), for the
  pre-spend estimate (core/providers/spend.py).

Every probe is cheap (one token, or a GET) and a failure of one leaves its question open rather than stopping the
command; only an unreachable, refusing or silent endpoint (no reply to a one-token request within --timeout) stops
it, with the one line the first real calls would have given.

What was found is `EndpointFacts`, recorded on the run under the role, the model and the endpoint's URL
(core/cli/endpoint.py `probe_first`) with the model id the server reported: the next command on the same endpoint and
model asks nothing again while the server reports the same model id (served() is always asked: it is a GET).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from gradedesk.core.providers.chat import EndpointRejected, ProviderError
from gradedesk.core.providers.spend import counting_tokenizer, our_count, sent
from gradedesk.core.providers.structured import FORMS, Shape, response_format
from gradedesk.core.providers.system_role import PROBE, probe_dropped

GET_TIMEOUT = 10.0  # seconds for a GET probe (/models, /props)
SHAPE_PROBE = [{"role": "user", "content": "Reply with the JSON object asked for."}]  # the structured-output probe
SINGLE_SLOT_OWNERS = ("me",)  # llama-cpp-python's /models owned_by: its server computes one request at a time
COUNT_PROBE_TOKENS = (30, 150)  # each message of the first prompt cut to this many of our tokens: two sizes to fit
MIN_SPREAD = 20  # our tokens between the two count probes below which only a ratio is fitted (a short first prompt)
_CONTEXT_KEYS = ("max_model_len", "context_length", "context_window", "n_ctx", "max_context_length")


@dataclass
class EndpointFacts:
    """What the probes found about one endpoint and model; None: not asked, or the server did not say."""

    served_model: str | None = None
    context_length: int | None = None
    slots: int | None = None
    system_dropped: str | None = None   # the warning when its chat template drops system messages
    system_probed: bool = False
    structured_form: str | None = None  # one of structured.FORMS
    count_fit: list[float] | None = None  # (a, b): the server counts a prompt as a + b x our count (probe_counts)
    count_probed: bool = False            # asked (count_fit None: the server gave no prompt count to fit)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of(cls, data: dict[str, Any]) -> EndpointFacts:
        known: dict[str, Any] = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        return cls(**known)



async def served(provider: Any) -> tuple[str | None, int | None, int | None]:
    """(the model id the server reports for the provider's model, its context length, its slots), each None when
    the server does not say."""
    models = await provider.model_list(GET_TIMEOUT)
    entry = next((m for m in models if m.get("id") == provider.model), models[0] if len(models) == 1 else None)
    if entry is None:
        return None, None, await _props_slots(provider)
    meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
    context = next((v for k in _CONTEXT_KEYS for v in (entry.get(k), meta.get(k)) if isinstance(v, int) and v > 0),
                   None)
    slots = 1 if entry.get("owned_by") in SINGLE_SLOT_OWNERS else await _props_slots(provider)
    return str(entry.get("id")), context, slots


async def _props_slots(provider: Any) -> int | None:
    """llama.cpp's server says how many requests it computes at once at GET /props (beside /v1)."""
    if provider.base_url is None:
        return None
    import httpx

    root = provider.base_url.rstrip("/").removesuffix("/v1")
    try:
        async with httpx.AsyncClient(timeout=min(provider.timeout, GET_TIMEOUT)) as http:
            reply = await http.get(f"{root}/props")
        slots = reply.json().get("total_slots") if reply.status_code == 200 else None
    except Exception:  # not llama.cpp, or no /props: nothing learnt
        return None
    return slots if isinstance(slots, int) and slots > 0 else None


async def probe_system(provider: Any) -> tuple[bool, str | None]:
    """(asked, the warning when the server's chat template drops system messages): PROBE with its system message and
    without; equal prompt counts mean it never reached the model."""
    counts = []
    for messages in (PROBE, PROBE[1:]):
        try:
            body = await provider.ask_once({"messages": messages, "max_tokens": 1})
        except ProviderError as exc:
            if exc.kind in ("connection", "timeout"):
                raise
            return False, None  # a reply the probe cannot read: nothing learnt
        usage = body.get("usage") if isinstance(body, dict) else None
        value = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        counts.append(value if isinstance(value, int) else None)
    return True, probe_dropped(*counts)


async def probe_counts(provider: Any, messages: list[dict]) -> list[float] | None:
    """(a, b) such that the server counts a prompt's tokens as a + b x ours, fitted on two one-token calls: each
    message of `messages` (the command's first prompt) cut to COUNT_PROBE_TOKENS[i] of our tokens, sent as the calls
    are (folded with --system-role user), so b is the tokenizers' ratio on text like the calls' and a the chat
    template's tokens a call. None when a reply gives no prompt count or the probe fails (the estimate is then
    ours, labelled so)."""
    tok = counting_tokenizer(provider)
    points: list[tuple[int, int]] = []
    for n in COUNT_PROBE_TOKENS:
        cut = sent(provider, [{**m, "content": tok.decode(tok.encode(str(m.get("content") or ""))[:n])}
                              for m in messages])
        try:
            body = await provider.ask_once({"messages": cut, "max_tokens": 1})
        except ProviderError as exc:
            if exc.kind in ("connection", "timeout"):
                raise
            return None  # a reply the probe cannot read: nothing learnt
        usage = body.get("usage") if isinstance(body, dict) else None
        count = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        if not isinstance(count, int) or count <= 0:
            return None
        points.append((our_count(tok, cut), count))
    (o1, s1), (o2, s2) = points
    if o2 - o1 < MIN_SPREAD:  # the prompt is too short to tell a template's tokens from the ratio
        return [0.0, s2 / o2] if o2 > 0 else None
    b = (s2 - s1) / (o2 - o1)
    return [s1 - b * o1, b] if b > 0 else None  # a count that fell as the prompt grew: nothing to fit


async def probe_form(provider: Any, shape: Shape) -> str | None:
    """The strongest structured-output form the endpoint does not reject, with `shape` as the schema; None when the
    probe could not tell (a busy or broken reply): the calls then ask for JSON mode as before."""
    for form in FORMS[:-1]:
        try:
            await provider.ask_once({"messages": SHAPE_PROBE, "max_tokens": 1,
                                     "response_format": response_format(form, shape)})
            return form
        except ProviderError as exc:
            if exc.kind in ("connection", "timeout"):
                raise
            if exc.retryable and not refuses_form(exc):  # busy or broken, not a refusal of the form: nothing learnt
                return None
    return "none"


def refuses_form(exc: ProviderError) -> bool:
    """Whether a server error refused the request's response_format rather than failed: llama-cpp-python's server
    answers OpenAI's json_schema form with HTTP 500 and its request validator's message, which names the field
    (`'loc': ('body', 'response_format', 'type')`); read as busy, the probe would settle for JSON mode without a
    schema, and a small model would answer in a shape of its own."""
    return exc.kind == "status" and "response_format" in str(exc)


async def probe_endpoint(provider: Any, shape: Shape | None, known: EndpointFacts | None = None) -> EndpointFacts:
    """The facts of the provider's endpoint (`known`: recorded on the run for it), asking only what is not known; the
    provider is set up from them (its structured form, its in-flight limit). Unreachable or refusing: the first
    call's one-line error (EndpointUnreachable, EndpointRejected)."""
    async with _probing(provider):
        served_model, context, slots = await served(provider)
        same = known is not None and known.served_model == served_model  # the same model behind the same name
        facts = replace(known) if same and known is not None else EndpointFacts(served_model, context, slots)
        if provider.base_url is not None and provider.system_role == "system" and not facts.system_probed:
            facts.system_probed, facts.system_dropped = await probe_system(provider)
        if shape is not None and facts.structured_form is None:
            facts.structured_form = await probe_form(provider, shape)
    provider.adopt(facts)
    return facts


async def calibrate_counts(provider: Any, facts: EndpointFacts, first_prompt: list[dict]) -> EndpointFacts:
    """`facts` with the server's count fitted on `first_prompt` (probe_counts), unless it was asked before."""
    if facts.count_probed:
        return facts
    async with _probing(provider):
        fit = await probe_counts(provider, first_prompt)
    return replace(facts, count_fit=fit, count_probed=True)


@asynccontextmanager
async def _probing(provider: Any) -> AsyncIterator[None]:
    """Probes' errors as the first call's: a connection error or a timeout is one line (every call would go the same
    way); the provider's client is closed after (the calls open their own in their event loop)."""
    from gradedesk.core.providers.chat import EndpointStalled, EndpointUnreachable

    try:
        yield
    except ProviderError as exc:
        if exc.kind == "timeout":
            raise EndpointStalled(
                f"{provider.endpoint}: no reply within --timeout {provider.timeout:g}s to a one-token request, and "
                f"none answered yet: is the server up and the model loaded (a first reply can be slow: raise "
                f"--timeout), and is --base-url right?") from None
        raise EndpointUnreachable(f"{provider.endpoint}: cannot connect ({exc})") from None
    except EndpointRejected:
        raise
    finally:
        await provider.aclose()
