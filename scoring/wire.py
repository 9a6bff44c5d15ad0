"""JSON-line messages between the processes of a scoring run, read with deadlines and a size bound.

Used both ways between the judge and its worker (scoring/judge/, scoring/worker/) and from the judge to
the scorer (scoring/isolation.py). A reader never trusts the writer: a line longer than `max_line_bytes`,
a line that is not a JSON object with an "event", a closed pipe and a silence past the deadline are each a
`WireError` with a reason, never a hang or an unbounded buffer. Nothing is unpickled from a message; NaN
and Infinity, which JSON does not have, are read as null.
"""

from __future__ import annotations

import json
import os
import select
import time

MAX_LINE_BYTES = 16 << 20  # an output descriptor or a kernel record is a few KiB; a flood stops here


class WireError(Exception):
    """The peer closed, went silent past the deadline, or wrote something that is not a message."""

    def __init__(self, reason: str, kind: str):
        super().__init__(reason)
        self.kind = kind  # "closed", "timeout", "malformed"


def send(fd: int, event: str, **payload) -> None:
    data = (json.dumps({"event": event, **payload}, default=str) + "\n").encode()
    while data:
        data = data[os.write(fd, data) :]


class Reader:
    """Messages from one pipe, one at a time."""

    def __init__(self, fd: int, max_line_bytes: int = MAX_LINE_BYTES):
        self.fd = fd
        self.max_line_bytes = max_line_bytes
        self._buffer = bytearray()

    def get(self, timeout_s: float | None) -> dict:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return _parse(line)
            if len(self._buffer) > self.max_line_bytes:
                raise WireError(f"a message longer than {self.max_line_bytes} bytes", "malformed")
            wait_s = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self.fd], [], [], wait_s)[0]:
                raise WireError(f"no message within {timeout_s:g} s", "timeout")
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise WireError("the pipe closed" + (" in the middle of a message" if self._buffer else ""), "closed")
            self._buffer += chunk

    def pending_event(self) -> str | None:
        """The event of the next message if it has fully arrived (read without waiting and kept for `get`),
        PIPE_CLOSED if the pipe closed before one did, None otherwise."""
        while select.select([self.fd], [], [], 0)[0] and len(self._buffer) <= self.max_line_bytes:
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                return PIPE_CLOSED if self._buffer.find(b"\n") < 0 else self._first_event()
            self._buffer += chunk
        return self._first_event()

    def _first_event(self) -> str | None:
        end = self._buffer.find(b"\n")
        if end < 0:
            return None
        try:
            return _parse(bytes(self._buffer[:end]))["event"]
        except WireError:
            return None  # `get` raises it, with the reason


PIPE_CLOSED = "<the pipe closed>"  # not an event name a message can carry: events are checked by name


def _parse(line: bytes) -> dict:
    try:
        # NaN and Infinity are not JSON: they arrive as null, so that a time or a count that is not a number
        # never reaches a statistic as one (the judge refuses a call's times that are not numbers).
        message = json.loads(line, parse_constant=lambda name: None)
    except (ValueError, RecursionError):  # RecursionError: a line nested deeper than the parser goes
        raise WireError("a line that is not JSON", "malformed") from None
    if not isinstance(message, dict) or not isinstance(message.get("event"), str):
        raise WireError("a JSON line without an event", "malformed")
    return message
