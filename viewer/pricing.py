"""Cost estimates for runs whose CLI states no cost (Claude Code session files), from one dated
price table. Every figure here is an estimate and is labelled so on the page.

Source: Anthropic's "Pricing" page, https://platform.claude.com/docs/en/about-claude/pricing
("Model pricing" table), as stored on PRICES_AS_OF. USD per million tokens. Cache writes are priced
at the 5-minute rate (Claude Code's default cache lifetime; a 1-hour write costs more, so an
estimate for such a run is low). Long-context surcharges and batch discounts are not applied.
Update the table, and PRICES_AS_OF, when the page changes; a model not in it gets no estimate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import TokenUsage

PRICES_AS_OF = "2026-11-27"
PRICES_SOURCE = "https://platform.claude.com/docs/en/about-claude/pricing"


@dataclass(frozen=True)
class PricePerMTok:
    input_usd: float
    cache_write_usd: float  # 5-minute cache writes
    cache_read_usd: float
    output_usd: float


# Model-id prefix -> price; the longest matching prefix wins (ids carry dates: claude-sonnet-4-5-20250929).
PRICES: dict[str, PricePerMTok] = {
    "claude-opus-4-5": PricePerMTok(5.00, 6.25, 0.50, 25.00),
    "claude-opus-4-6": PricePerMTok(5.00, 6.25, 0.50, 25.00),
    "claude-opus-4-7": PricePerMTok(5.00, 6.25, 0.50, 25.00),
    "claude-opus-4-8": PricePerMTok(5.00, 6.25, 0.50, 25.00),
    "claude-opus-5": PricePerMTok(5.00, 6.25, 0.50, 25.00),
    "claude-opus-4-1": PricePerMTok(15.00, 18.75, 1.50, 75.00),
    "claude-opus-4": PricePerMTok(15.00, 18.75, 1.50, 75.00),  # 4.0: claude-opus-4-20250514
    "claude-sonnet-4": PricePerMTok(3.00, 3.75, 0.30, 15.00),  # 4, 4.5, 4.6
    "claude-3-7-sonnet": PricePerMTok(3.00, 3.75, 0.30, 15.00),
    "claude-haiku-4-5": PricePerMTok(1.00, 1.25, 0.10, 5.00),
    "claude-3-5-haiku": PricePerMTok(0.80, 1.00, 0.08, 4.00),
    "claude-3-haiku": PricePerMTok(0.25, 0.30, 0.03, 1.25),
}


@dataclass(frozen=True)
class CostEstimate:
    usd: float
    model_prefix: str

    @property
    def label(self) -> str:
        return f"${self.usd:.4f} estimate ({self.model_prefix} prices of {PRICES_AS_OF})"


def price_for(model: str) -> tuple[str, PricePerMTok] | None:
    name = re.sub(r"^(anthropic[./]|us\.anthropic\.)", "", model.strip().lower())
    matches = [
        prefix for prefix in PRICES if name == prefix or name.startswith(prefix + "-") or name.startswith(prefix + "[")
    ]
    if not matches:
        return None
    prefix = max(matches, key=len)
    return prefix, PRICES[prefix]


def estimate_cost(model: str, tokens: TokenUsage) -> CostEstimate | None:
    """The run's cost at list prices, or None: unknown model, or no token recorded."""
    found = price_for(model or "")
    if found is None or not tokens.recorded:
        return None
    prefix, price = found
    usd = (
        (tokens.fresh_input or 0) * price.input_usd
        + (tokens.cache_write or 0) * price.cache_write_usd
        + (tokens.cache_read or 0) * price.cache_read_usd
        + ((tokens.output or 0) + (tokens.reasoning or 0)) * price.output_usd
    ) / 1_000_000
    return CostEstimate(usd, prefix)
