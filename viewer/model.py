"""The normalised event model every parser produces and the renderer reads.

Token convention (the same for every format, whatever the vendor counts):
  fresh_input  input tokens that were neither read from nor written to a prompt cache
  cache_read   input tokens served from a prompt cache
  cache_write  input tokens written to a prompt cache (Anthropic-style cache creation)
  output       generated tokens, excluding reasoning where the vendor reports it apart
  reasoning    reasoning/thinking tokens where the vendor reports them apart (else 0:
               Anthropic counts thinking inside output_tokens)
`total` is the sum of the five, so no token is counted twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

# Event kinds, in the order the filter bar lists them.
EVENT_KINDS = ("user", "assistant", "reasoning", "tool", "system", "error", "raw")


@dataclass(frozen=True)
class TokenUsage:
    fresh_input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0

    @property
    def total(self) -> int:
        return self.fresh_input + self.cache_read + self.cache_write + self.output + self.reasoning

    def __add__(self, other: "TokenUsage") -> "TokenUsage":
        return TokenUsage(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __bool__(self) -> bool:
        return self.total > 0

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)} | {"total": self.total}


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
    children: tuple["Subagent", ...] = ()
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
