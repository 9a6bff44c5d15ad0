"""The one mutable helper parsers use: it collects events per thread (main or subagent), pairs
tool results with their calls by id, keeps token usage once per model response, and freezes
everything into a Transcript at the end.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from .changes import summarize
from .coerce import clip, to_json
from .jsonl import Line
from .model import Event, FileChange, Subagent, TokenUsage, Transcript, sum_usage

MAIN = None  # the main thread's key


class Builder:
    def __init__(self, fmt: str, harness: str, path: Path | str):
        self.format, self.harness, self.path = fmt, harness, str(path)
        self.source = Path(path).name
        self.model = self.effort = self.session_id = self.cwd = ""
        self.started_at: float | None = None
        self.duration_s: float | None = None
        self.complete = False
        self.incomplete_reason = "no final record: the transcript ends mid-run"
        self.cost_usd: float | None = None
        self.stated_tokens: TokenUsage | None = None  # a run total the format states
        self.stated_turns: int | None = None
        self.format_version = ""  # the CLI or protocol version the transcript names
        self.usage_not_understood = False  # some usage could not be read: claim no total
        self.warnings: list[str] = []
        self._threads: dict[str | None, list[Event]] = {MAIN: []}
        self._tools: dict[str, tuple[str | None, int]] = {}  # tool id -> (thread, index)
        self._usage: dict[Any, tuple[str | None, TokenUsage, str]] = {}  # key -> (thread, usage, anchor)
        self._spawns: dict[str, dict[str, Any]] = {}  # subagent key -> its description
        self._spawn_calls: dict[str, dict[str, Any]] = {}  # spawning tool id -> what it asked
        self._count = 0
        self._append_marker: dict[str | None, Any] = {}
        self.links: dict[str, str] = {}  # format-specific ids (agent or session ids) -> spawning tool id
        # thread -> label -> count of records known but not worth a card (permission approvals, LLM requests)
        self._quiet: dict[str | None, dict[str, int]] = {}

    # --- events ----------------------------------------------------------------------------
    def add(self, kind: str, agent: str | None = MAIN, **fields: Any) -> Event:
        self._count += 1
        fields.setdefault("source", self.source)
        event = Event(kind, anchor=f"e{self._count}", agent=agent, **fields)
        if agent is not MAIN and agent not in self._spawns:
            self.spawn(agent)
        self._threads.setdefault(agent, []).append(event)
        if event.kind == "tool" and event.tool_id:
            self._tools[event.tool_id] = (agent, len(self._threads[agent]) - 1)
        return event

    def quiet(self, label: str, agent: str | None = MAIN) -> None:
        """Count a record this viewer knows but shows no card for; each thread gets one quiet line
        at its end ("12 permission approvals, 3 LLM requests"), so nothing is silently dropped."""
        counts = self._quiet.setdefault(agent, {})
        counts[label] = counts.get(label, 0) + 1

    def _add_quiet_lines(self) -> None:
        for agent, counts in self._quiet.items():
            text = ", ".join(f"{n:,} {label}" for label, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
            self.add("system", agent, subtype="quiet", text=f"Not shown as cards: {text}")
        self._quiet = {}

    def raw(self, line: Line | int, value: Any = None, agent: str | None = MAIN, why: str = "unknown record") -> Event:
        number = line.number if isinstance(line, Line) else line
        if isinstance(line, Line) and line.obj is None:
            value, why = line.text, "not valid JSON (a truncated or corrupt line)"
        text = value if isinstance(value, str) else to_json(value)
        return self.add("raw", agent, subtype=why, text=clip(text, 20_000), line=number)

    def call(
        self,
        tool_id: str,
        name: str,
        tool_input: Any,
        agent: str | None = MAIN,
        changes: list[FileChange] | tuple = (),
        **fields: Any,
    ) -> Event:
        return self.add(
            "tool", agent, tool_id=tool_id, tool_name=name, tool_input=tool_input, changes=tuple(changes), **fields
        )

    def result(
        self,
        tool_id: str,
        output: str,
        is_error: bool = False,
        time_s: float | None = None,
        changes: list[FileChange] | None = None,
        agent: str | None = MAIN,
        line: int = 0,
        duration_s: float | None = None,
    ) -> None:
        """Attach a result to its call; a result whose call is unknown becomes its own event."""
        where = self._tools.get(tool_id)
        if where is None:
            self.add(
                "tool",
                agent,
                tool_id=tool_id,
                tool_name="(unknown call)",
                result=output,
                is_error=is_error,
                time_s=time_s,
                changes=tuple(changes or ()),
                line=line,
                subtype="result without a matching call",
            )
            return
        thread, index = where
        event = self._threads[thread][index]
        if duration_s is None:
            duration_s = event.duration_s  # recorded before the result (Codex's exec_command_end)
        if duration_s is None and time_s is not None and event.time_s is not None:
            duration_s = max(time_s - event.time_s, 0.0)
        updated = replace(event, result=output, is_error=is_error, duration_s=duration_s)
        if changes is not None:
            updated = replace(updated, changes=tuple(changes))
        self._threads[thread][index] = updated

    def update_tool(self, tool_id: str, **fields: Any) -> None:
        where = self._tools.get(tool_id)
        if where:
            thread, index = where
            self._threads[thread][index] = replace(self._threads[thread][index], **fields)

    def tool_event(self, tool_id: str) -> Event | None:
        where = self._tools.get(tool_id)
        return self._threads[where[0]][where[1]] if where else None

    def append_text(self, agent: str | None, kind: str, text: str, marker: Any) -> bool:
        """Streamed text arrives in parts: extend the thread's last event when it is the same
        kind of text from the same step (`marker`), else tell the caller to add a new one."""
        thread = self._threads.get(agent)
        if not thread or thread[-1].kind != kind or self._append_marker.get(agent) != marker:
            self._append_marker[agent] = marker
            return False
        thread[-1] = replace(thread[-1], text=clip(thread[-1].text + text))
        return True

    def judge_by_last_event(self, why: str) -> None:
        """For formats with no end record: complete when the main thread ends on assistant text
        and every tool call got its result. System notes after the answer (a turn's duration, a
        hook's output) do not make a finished run look cut off."""
        thread = [e for e in self._threads[MAIN] if e.kind != "system"]
        pending = any(e.kind == "tool" and e.result is None for e in thread)
        self.complete = bool(thread) and thread[-1].kind == "assistant" and not pending
        self.incomplete_reason = why

    def thread(self, agent: str | None = MAIN) -> list[Event]:
        return self._threads.get(agent, [])

    def retag(self, agent: str | None, predicate, **fields: Any) -> None:
        thread = self._threads.get(agent, [])
        for index, event in enumerate(thread):
            if predicate(event):
                thread[index] = replace(event, **fields)

    def find_tool(self, predicate) -> str:
        """The id of the first tool call (in arrival order) that matches."""
        for thread, index in sorted(self._tools.values(), key=lambda w: int(self._threads[w[0]][w[1]].anchor[1:])):
            event = self._threads[thread][index]
            if predicate(event):
                return event.tool_id
        return ""

    def is_claimed(self, tool_id: str) -> bool:
        return any(spec["parent_tool_id"] == tool_id for spec in self._spawns.values())

    def spawn_keys(self) -> list[str]:
        return list(self._spawns)

    def spawn_parent(self, key: str) -> str:
        return self._spawns.get(key, {}).get("parent_tool_id", "")

    def next_anchor(self) -> str:
        """The anchor the next event will get (to put a step's usage on its first event)."""
        return f"e{self._count + 1}"

    def has_anchor(self, anchor: str) -> bool:
        return anchor[1:].isdigit() and int(anchor[1:]) <= self._count

    def last_event(self, agent: str | None = MAIN) -> Event | None:
        thread = self._threads.get(agent)
        return thread[-1] if thread else None

    # --- tokens ------------------------------------------------------------------------------
    def usage(self, key: Any, tokens: TokenUsage, agent: str | None = MAIN, anchor: str | None = None) -> None:
        """Usage of one model response. A repeated key replaces the earlier value (a response
        written as several lines repeats its usage: it must count once)."""
        if key in self._usage:
            thread, _, first_anchor = self._usage[key]
            self._usage[key] = (thread, tokens, first_anchor)
            return
        if anchor is None:
            last = self.last_event(agent)
            anchor = last.anchor if last else ""
        self._usage[key] = (agent, tokens, anchor)

    # --- subagents ---------------------------------------------------------------------------
    def spawn(
        self,
        key: str | None,
        parent_tool_id: str = "",
        agent_type: str = "",
        description: str = "",
        prompt: str = "",
        parent_agent: str | None = MAIN,
    ) -> None:
        if key is MAIN:
            return
        known = self._spawns.setdefault(
            key, {"parent_tool_id": "", "agent_type": "", "description": "", "prompt": "", "parent_agent": parent_agent}
        )
        for name, value in (
            ("parent_tool_id", parent_tool_id),
            ("agent_type", agent_type),
            ("description", description),
            ("prompt", prompt),
        ):
            if value and not known[name]:
                known[name] = value
        self._threads.setdefault(key, [])

    def register_spawn_call(
        self, tool_id: str, agent_type: str = "", description: str = "", prompt: str = "", agent: str | None = MAIN
    ) -> None:
        """A tool call that starts a subagent. The subagent itself may arrive under another key
        (an agent id) naming this call; one that never arrives still shows as an empty node."""
        self._spawn_calls[tool_id] = {
            "agent_type": agent_type,
            "description": description,
            "prompt": prompt,
            "agent": agent,
        }

    def _settle_spawns(self) -> None:
        claimed = {spec["parent_tool_id"] for spec in self._spawns.values()}
        for tool_id, call in self._spawn_calls.items():
            if tool_id not in claimed:
                self.spawn(tool_id, tool_id, parent_agent=call["agent"])
        for spec in self._spawns.values():
            call = self._spawn_calls.get(spec["parent_tool_id"])
            for name in ("agent_type", "description", "prompt"):
                if call and not spec[name]:
                    spec[name] = call[name]

    # --- freezing ----------------------------------------------------------------------------
    def build(self) -> Transcript:
        self._add_quiet_lines()
        self._settle_spawns()
        badges: dict[str, TokenUsage] = {}
        per_thread: dict[str | None, TokenUsage] = {}
        for thread, tokens, anchor in self._usage.values():
            if anchor:
                badges[anchor] = badges.get(anchor, TokenUsage()) + tokens
            per_thread[thread] = per_thread.get(thread, TokenUsage()) + tokens
        threads = {
            key: tuple(replace(e, tokens=badges[e.anchor]) if e.anchor in badges else e for e in events)
            for key, events in self._threads.items()
        }
        all_events = [e for events in threads.values() for e in events]
        all_events.sort(key=lambda e: int(e.anchor[1:]))
        times = [e.time_s for e in all_events if e.time_s is not None]
        started = self.started_at if self.started_at is not None else (min(times) if times else None)
        duration = self.duration_s
        if duration is None and len(times) >= 2:
            duration = max(times) - min(times)
        main_responses = sum(1 for thread, _, _ in self._usage.values() if thread is MAIN)
        turns = (
            self.stated_turns
            if self.stated_turns is not None
            else main_responses or sum(1 for e in threads[MAIN] if e.kind == "assistant")
        )
        total = self.stated_tokens if self.stated_tokens is not None else sum_usage(per_thread.values())
        if self.usage_not_understood:
            total = TokenUsage()
        return Transcript(
            format=self.format,
            format_version=self.format_version,
            harness=self.harness,
            path=self.path,
            model=self.model,
            effort=self.effort,
            session_id=self.session_id,
            cwd=self.cwd,
            started_at=started,
            duration_s=duration,
            complete=self.complete,
            incomplete_reason="" if self.complete else self.incomplete_reason,
            events=threads[MAIN],
            tokens=total,
            cost_usd=self.cost_usd,
            turns=turns,
            tool_calls=sum(1 for e in all_events if e.kind == "tool"),
            file_changes=summarize(all_events),
            subagents=self._tree(threads, per_thread),
            warnings=tuple(self.warnings),
        )

    def _tree(self, threads: dict, per_thread: dict) -> tuple[Subagent, ...]:
        children: dict[str | None, list[str]] = {}
        for key, spec in self._spawns.items():
            parent = spec["parent_agent"]
            owner = self._tools.get(spec["parent_tool_id"])
            if owner is not None:
                parent = owner[0]  # placed under the thread whose call spawned it
            if parent == key or parent not in threads:
                parent = MAIN
            children.setdefault(parent, []).append(key)

        # A parent chain that loops never reaches the main thread: hang such agents at the top.
        reached, stack = set(), [MAIN]
        while stack:
            for kid in children.get(stack.pop(), ()):
                if kid not in reached:
                    reached.add(kid)
                    stack.append(kid)
        children.setdefault(MAIN, []).extend(k for k in self._spawns if k not in reached)

        def spawn_order(key: str) -> int:  # siblings in the order of their spawning calls
            owner = self._tools.get(self._spawns[key]["parent_tool_id"])
            return int(self._threads[owner[0]][owner[1]].anchor[1:]) if owner else 1 << 60

        for siblings in children.values():
            siblings.sort(key=spawn_order)

        def node(key: str, seen: frozenset) -> Subagent:
            spec = self._spawns[key]
            kids = tuple(node(k, seen | {key}) for k in children.get(key, ()) if k not in seen)
            return Subagent(
                key=key,
                parent_tool_id=spec["parent_tool_id"],
                agent_type=spec["agent_type"],
                description=spec["description"],
                prompt=spec["prompt"],
                events=threads.get(key, ()),
                children=kids,
                tokens=per_thread.get(key, TokenUsage()),
            )

        return tuple(node(k, frozenset()) for k in children.get(MAIN, ()))
