"""Tolerant conversions of transcript values: numbers, times and text that may be missing,
of the wrong type, or enormous. None of these functions raise."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

# Text kept per field. Larger fields keep their head and tail, so memory stays bounded on a
# 100 MB transcript; the raw file on disk is the complete record.
TEXT_LIMIT_CHARS = 200_000


def clip(text: str, limit: int = TEXT_LIMIT_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    omitted = len(text) - 2 * half
    return f"{text[:half]}\n… [{omitted:,} characters omitted by the viewer] …\n{text[-half:]}"


def to_int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value == value and abs(value) < 1e18:
        return max(int(value), 0)
    if isinstance(value, str):
        try:
            return max(int(float(value)), 0)
        except ValueError:
            return 0
    return 0


def count(obj: Any, *keys: str) -> int | None:
    """A token count: the first of `keys` that `obj` holds, as a non-negative int; None when
    `obj` holds none of them (not recorded, which is not the same as zero)."""
    if isinstance(obj, dict):
        for key in keys:
            if key in obj and obj[key] is not None:
                return to_int(obj[key])
    return None


def minus(a: int | None, b: int | None) -> int | None:
    """a - b for counts where b is a part of a (cached inside input); None stays None."""
    return None if a is None else max(a - (b or 0), 0)


def to_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and value == value and abs(value) < 1e300:
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def to_str(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def to_text(value: Any) -> str:
    """Any JSON value as display text: strings as they are, blocks joined, the rest as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        parts = []
        for block in value:
            if isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif to_str(block.get("type")) in ("image", "input_image"):
                parts.append("[image]")
            else:
                parts.append(to_json(block))
        return clip("\n".join(parts))
    return clip(to_json(value))


def to_json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        return repr(value)[:TEXT_LIMIT_CHARS]


def parse_args(value: Any) -> Any:
    """Tool arguments recorded as a JSON string (OpenAI style) or as an object."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


# Times outside 1990..2200 are taken as garbage rather than rendered.
_TIME_RANGE_S = (631_152_000.0, 7_258_118_400.0)


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def to_time_s(value: Any) -> float | None:
    """ISO 8601 text, Unix seconds or Unix milliseconds, as Unix seconds."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        if value != value or value <= 0:
            return None
        seconds = value / 1000.0 if value > 1e11 else float(value)
        return seconds if _TIME_RANGE_S[0] <= seconds <= _TIME_RANGE_S[1] else None
    if isinstance(value, str) and value:
        text = value.strip().replace("Z", "+00:00")
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return to_time_s(to_float(value))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return to_time_s(moment.timestamp())
    return None


def get(obj: Any, *keys: str, default: Any = None) -> Any:
    """obj[k1][k2]... where every level may be missing or not a dict."""
    for key in keys:
        if not isinstance(obj, dict):
            return default
        obj = obj.get(key)
    return default if obj is None else obj
