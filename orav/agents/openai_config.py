"""How the LLM agent reaches and pays its model: ``OpenAIConfig`` (from an ``openai:MODEL``
spec and options, each checked), the base URL's checks, and list prices per model."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from attrs import field, frozen, validators

from orav.codec import structure, unstructure
from orav.errors import InputError

OPENAI_URL = "https://api.openai.com/v1"


@frozen
class Price:
    """US dollars per million input (prompt) and output (completion) tokens."""

    input: float
    output: float


# List prices as published when this was written; override with ``prices=`` (they change).
DEFAULT_PRICES: dict[str, Price] = {
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1": Price(2.00, 8.00),
}


def price_of(model: str, prices: dict[str, Price]) -> Price | None:
    """The price of ``model``: an exact entry, else the longest prefix (dated snapshots)."""
    if model in prices:
        return prices[model]
    matches = [name for name in prices if model.startswith(name)]
    return prices[max(matches, key=len)] if matches else None


@frozen
class OpenAIConfig:
    """How the agent talks to the model. ``api_key`` defaults to ``OPENAI_API_KEY`` and
    ``base_url`` to ``OPENAI_BASE_URL`` (else OpenAI); local servers get a dummy key.

    ``timeout`` bounds one HTTP attempt; a transient failure (408, 409, 429, 5xx, a dropped
    connection, a timeout) is retried ``max_retries`` times with backoff, and whenever the
    server says when to come back (``Retry-After``), as long as the call's waits stay within
    ``retry_seconds``; ``reasks`` bounds the re-asks after invalid answers. ``response_format`` is how
    the answer is asked for: a JSON schema, a ``tool`` to call (for servers that prefer
    function calling), or ``json_object`` / ``text`` for servers without JSON-schema support
    (the default is the family's; a server that refuses it gets the next looser one).
    ``family`` is how the model answers and in which coordinates (``orav.agents.family``),
    detected from the model's name when not given. ``marks`` draws each cited element's
    reference number on the screenshot (set-of-mark), for small models.
    """

    model: str = field(validator=validators.min_len(1))
    api_key: str | None = field(default=None, repr=False)
    base_url: str | None = None
    temperature: float = field(default=0.0, validator=[validators.ge(0), validators.le(2)])
    seed: int | None = None
    timeout: float = field(default=60.0, validator=validators.gt(0))
    max_retries: int = field(default=2, validator=validators.ge(0))
    retry_seconds: float = field(default=60.0, validator=validators.ge(0))
    max_output_tokens: int = field(default=1024, validator=validators.gt(0))
    image_detail: Literal["auto", "low", "high"] = "auto"
    send_screenshot: bool = True
    marks: bool = False
    screenshot_max_size: int = field(default=1024, validator=validators.ge(64))
    reasks: int = field(default=2, validator=validators.ge(0))
    history: int = field(default=8, validator=validators.ge(0))
    response_format: Literal["tool", "json_schema", "json_object", "text"] | None = None
    family: Literal["orav", "qwen2.5", "qwen3", "uitars", "gemini"] | None = None
    prices: dict[str, Price] = field(factory=lambda: dict(DEFAULT_PRICES), hash=False)

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> OpenAIConfig:
        """From an agent spec ``openai:MODEL[?name=value&...]`` (as in ``--agent
        openai:qwen2.5vl:7b?family=qwen2.5``) and options, which override the spec's.

        The model may contain colons (``openai:llama3.2-vision:11b``); options that are None
        are left at their defaults, so CLI flags can be passed through as they are.
        """
        provider, _, rest = spec.partition(":")
        model, _, query = rest.partition("?")
        if provider != "openai" or not model:
            raise InputError(f"expected openai:MODEL, e.g. openai:gpt-4o; got {spec!r}", "--agent")
        try:
            given = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
        except ValueError:
            raise InputError(
                f"expected name=value&... after '?', got {query!r}", "--agent"
            ) from None
        chosen = {key: _scalar(value) for key, value in given}
        chosen.update((key, value) for key, value in options.items() if value is not None)
        data = unstructure(chosen)
        return structure({"model": model, **data}, cls, source="--agent " + spec)


def _scalar(text: str) -> object:
    """A spec's ``?name=value`` as ``--agent-option`` reads it: a YAML number or boolean, else
    the text."""
    from orav.codec import parse_yaml

    parsed = parse_yaml(text, "--agent") if text.strip() else ""
    return parsed if isinstance(parsed, (bool, int, float)) else text


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an API base URL (http or https, a host, a valid port), or None."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        return f"not a URL ({exc}): {url[:100]!r}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"expected an http:// or https:// URL with a host, got {url[:100]!r}"
    return None


def public_url(url: str) -> str:
    """A base URL fit for messages: no user:password@."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc))
