"""What a worker may say to its judge: every field the judge reads, with what it must be.

The worker is the solution's process, so each of its messages is a claim in a format the judge checks before
reading a value: a message that breaks this is malformed (X14), never a crash of the judge and never a
verdict (red team rounds 2 to 4 sent a status "passed", a list for a descriptor, a number for a shape, an
integer of 400 digits, NaN times).
"""

from __future__ import annotations

import math

from scoring.timing import CallTiming

# What the worker may say went wrong (scoring/worker/failures.py status_of_exception); a verdict is never among them.
CALL_FAILURE_STATUSES = frozenset({"runtime_error", "forbidden_op", "integrity", "incorrect", "timeout"})
IMPORT_FAILURE_STATUSES = frozenset({"import_error", "forbidden_op", "integrity", "timeout"})
MAX_DETAIL_CHARS = 20_000


def _number(value) -> bool:
    """A finite number a float holds (an int of 400 digits is valid JSON and overflows a float)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _text(value) -> bool:
    return isinstance(value, str)


def _object(value) -> bool:
    return isinstance(value, dict)


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 62


def _counts(value) -> bool:
    return isinstance(value, list) and len(value) <= 16 and all(_count(n) for n in value)


def _descriptor(value) -> bool:
    """The output descriptor's fields of the types check_descriptor and OutputOpener read; whether they
    describe the right output is theirs to judge (X05)."""
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return False
    if value["type"] != "torch.Tensor":
        return True
    return (
        all(_text(value.get(k)) for k in ("dtype", "device", "layout"))
        and _counts(value.get("shape"))
        and _optional(_counts)(value.get("stride"))
        and _optional(_count)(value.get("offset"))
        and _optional(lambda v: isinstance(v, list) and len(v) == 8)(value.get("cuda_ipc"))
        and _optional(_text)(value.get("mailbox"))
    )


def _optional(check):
    return lambda value: value is None or check(value)


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _audit_profile(value) -> bool:
    """An audited call's counters: ranges of metric name -> number or text, and why there are none."""
    return (
        isinstance(value, dict)
        and _optional(
            lambda r: (
                isinstance(r, list)
                and all(
                    isinstance(row, dict)
                    and all(
                        isinstance(k, str) and (_number(v) or isinstance(v, str) or v is None) for k, v in row.items()
                    )
                    for row in r
                )
            )
        )(value.get("ranges"))
        and _optional(_text)(value.get("why_not"))
        and _optional(_strings)(value.get("launch_names"))
    )


# Every field the judge reads from a worker's message, with what it must be; a message that breaks this is
# malformed (X14), never a crash of the judge (red team round 3 sent a list where a descriptor goes).
MESSAGE_FIELDS = {
    "ready": {
        "done_event": _optional(_text),
        "timer": _object,
        "kernel_record": _optional(_object),
        "sandbox": _optional(_object),
        "startup_s": lambda v: _object(v) and all(_number(x) for x in v.values()),
    },
    "imported": {"import_ms": _number, "loaded_files": _strings, "library_version": _optional(_text)},
    "import_failed": {"status": _text, "detail": _text},
    "failed": {"status": _text, "detail": _text, "fresh": lambda v: isinstance(v, bool)},
    "queued": {"output": _descriptor},
    "done": {"timing": _object, "audit_profile": _optional(_audit_profile)},
    "prepare_done": {"prepare_ms": _number, "launch_names": _optional(_strings)},
    "shape_start_done": {},
    "shape_end_done": {
        "kernel_record": _object,
        "kernel_names": _strings,
        "outlived": _optional(_text),
        "timed_launch_names": _optional(_strings),
    },
}


def malformed_fields(message: dict) -> list[str]:
    """The fields of a worker's message that are not what the judge reads them as."""
    fields = MESSAGE_FIELDS.get(message["event"], {})
    return [name for name, check in fields.items() if not check(message.get(name))]


def worker_timing(reported) -> dict | None:
    """The worker's times for one call as CallTiming's fields, each a finite number >= 0 and the call's own
    time > 0; None otherwise."""
    fields = CallTiming._fields
    if not isinstance(reported, dict) or set(reported) != set(fields):
        return None
    if not all(_number(reported[f]) and reported[f] >= 0 for f in fields):
        return None
    if reported["device_ms"] <= 0:  # every call takes time; a zero would divide the roofline by zero
        return None
    return {f: float(reported[f]) for f in fields}
