"""The normalised event model every parser produces and the renderer reads.

Token convention (the same for every format, whatever the vendor counts; a count the transcript
does not record is None, never 0):
  fresh_input  input tokens that were neither read from nor written to a prompt cache
  cache_read   input tokens served from a prompt cache
  cache_write  input tokens written to a prompt cache (Anthropic-style cache creation)
  output       generated tokens, excluding reasoning where the vendor reports it apart
  reasoning    reasoning/thinking tokens where the vendor reports them apart (else None:
               Anthropic counts thinking inside output_tokens)
`total` is the sum of the recorded counts, so no token is counted twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Event kinds, in the order the filter bar lists them.
EVENT_KINDS = ("user", "assistant", "reasoning", "tool", "system", "error", "raw")


@dataclass(frozen=True)
class TokenUsage:
    """Five disjoint counts; each is None when the transcript did not record it.

    None is not zero: a Cursor stream without a usage record, a droid run without its settings
    sidecar, a Kimi print stream all leave every count None ("not recorded"), and a vendor that
    has no such count (OpenAI has no cache writes; Anthropic reports thinking inside output)
    leaves that one None. `total` is the sum of the recorded counts, None when none was.
    """

    fresh_input: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    output: int | None = None
    reasoning: int | None = None

    @property
    def total(self) -> int | None:
        counts = [c for c in self.counts() if c is not None]
        return sum(counts) if counts else None

    @property
    def recorded(self) -> bool:
        return any(c is not None for c in self.counts())

    def counts(self) -> tuple[int | None, ...]:
        return tuple(getattr(self, name) for name in TOKEN_FIELDS)

    def __add__(self, other: TokenUsage) -> TokenUsage:
        """Field by field; a count stays None only where neither side recorded it."""
        return TokenUsage(*(_add(a, b) for a, b in zip(self.counts(), other.counts())))

    def __bool__(self) -> bool:
        return bool(self.total)

    def as_dict(self) -> dict[str, int | None]:
        """The five counts and the total; null (None) where not recorded."""
        return dict(zip(TOKEN_FIELDS, self.counts())) | {"total": self.total}


TOKEN_FIELDS = ("fresh_input", "cache_read", "cache_write", "output", "reasoning")


def _add(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else a + b


def sum_usage(usages) -> TokenUsage:
    """The sum of several usages; TokenUsage() (nothing recorded) for none."""
    total = TokenUsage()
    for usage in usages:
        total = total + usage
    return total


@dataclass(frozen=True)
class FileChange:
    """One change to one file, as one tool call made it.

    `diff` is a unified diff body (may be empty when nothing could be rebuilt); `new_content`
    is the whole file after the change when the transcript tells it (a write, a created file).
    `source` says where the diff came from: "tool" (the tool's own recorded diff),
    "rebuilt" (from old/new strings), "patch" (apply_patch text), "heredoc" (a shell write),
    "content" (from tracked file contents).
    """

    path: str
    action: str  # "edit", "write", "create", "delete", "move"
    diff: str = ""
    source: str = "rebuilt"
    new_content: str | None = None
    old_content: str | None = None  # the whole file before the change, when the tool recorded it
    # (old, new) text replacements the edit made, so the viewer can track file contents;
    # empty when only a diff is known (the hunks are then used instead).
    replacements: tuple[tuple[str, str], ...] = ()
    replace_all: bool = False
    move_to: str | None = None
    anchor: str = ""  # the event that made the change


@dataclass(frozen=True)
class Event:
    """One normalised event. `kind` is one of EVENT_KINDS.

    Tool calls are one event with their result attached (paired by the call id the format
    records). `tokens` is the usage of the model response this event opens (a per-turn badge).
    """

    kind: str
    anchor: str = ""
    text: str = ""
    subtype: str = ""
    time_s: float | None = None  # Unix seconds
    duration_s: float | None = None
    agent: str | None = None  # subagent key; None is the main thread
    tool_name: str = ""
    tool_id: str = ""
    tool_input: Any = None
    result: str | None = None
    is_error: bool = False
    tokens: TokenUsage | None = None
    changes: tuple[FileChange, ...] = ()
    line: int = 0  # 1-based line in the source file (0 when not line-based)
    source: str = ""  # file name the event came from, for raw events and errors


@dataclass(frozen=True)
class Subagent:
    """A subagent run, placed under the tool call (`parent_tool_id`) that spawned it."""

    key: str
    parent_tool_id: str = ""
    agent_type: str = ""
    description: str = ""
    prompt: str = ""
    events: tuple[Event, ...] = ()
    children: tuple[Subagent, ...] = ()
    tokens: TokenUsage = field(default_factory=TokenUsage)

    @property
    def tool_calls(self) -> int:
        return sum(1 for e in self.events if e.kind == "tool")

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True)
class FileSummary:
    """Everything the run did to one file: for the 'changes' view."""

    path: str
    changes: tuple[FileChange, ...]
    combined_diff: str
    final_content: str | None


@dataclass(frozen=True)
class Transcript:
    format: str
    harness: str
    format_version: str = ""  # the CLI or wire-protocol version the transcript names, if any
    path: str = ""
    model: str = ""
    effort: str = ""
    session_id: str = ""
    cwd: str = ""
    started_at: float | None = None  # Unix seconds
    duration_s: float | None = None
    complete: bool = False
    incomplete_reason: str = ""
    events: tuple[Event, ...] = ()
    tokens: TokenUsage = field(default_factory=TokenUsage)
    cost_usd: float | None = None
    turns: int = 0
    tool_calls: int = 0
    file_changes: tuple[FileSummary, ...] = ()
    subagents: tuple[Subagent, ...] = ()
    warnings: tuple[str, ...] = ()

    def all_events(self):
        """Main-thread events, then every subagent's, depth first."""
        yield from self.events
        for sub in self.subagents:
            for node in sub.walk():
                yield from node.events
