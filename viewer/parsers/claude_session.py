"""Claude Code session files (`~/.claude/projects/<dir>/<sessionId>.jsonl`) and their subagents.

Subagents live in `<sessionId>/subagents/agent-<id>.jsonl` with `agent-<id>.meta.json` naming the
spawning call (`toolUseId`), or (older versions) in `agent-<id>.jsonl` beside the session file.
Without a meta file a subagent is paired with its call through the Task result's `agentId`, then
through the prompt text: never by position. Messages off the final branch (after a rewind) are
kept, marked as such.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..builder import MAIN, Builder
from ..coerce import get, to_int, to_str
from ..jsonl import iter_lines, read_json
from ..model import Transcript
from ..versions import CLAUDE_CODE_CHECKED, note_checked_range
from .claude_common import add_compaction, add_message, usage_of
from .records import records, type_and_time

FORMAT, HARNESS = "claude-session", "Claude Code"
_AGENT_FILE = re.compile(r"^agent-(.+)\.jsonl$")
# Bookkeeping record types -> how the quiet line counts them.
_SKIPPED = {
    "file-history-snapshot": "file-history snapshots",
    "progress": "progress updates",
    "queue-operation": "queued-prompt records",
    "last-prompt": "last-prompt records",
    "custom-title": "title records",
    "agent-name": "agent-name records",
    "pr-link": "pull-request links",
}


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    graph: dict[str, str] = {}  # uuid -> parentUuid, main thread only
    line_of: dict[str, int] = {}
    last_stop = _parse_file(b, path, MAIN, graph, line_of)
    _mark_abandoned_branches(b, graph, line_of)
    keys = []
    for agent_file, meta in _subagent_files(path, b.session_id):
        key = _AGENT_FILE.match(agent_file.name).group(1)
        keys.append(key)
        b.source = agent_file.name
        b.spawn(
            key,
            to_str(get(meta, "toolUseId")),
            agent_type=to_str(get(meta, "agentType") or get(meta, "subagent_type")),
            description=to_str(get(meta, "description")),
        )
        _parse_file(b, agent_file, key, {}, {})
    for key in keys:  # after all files: a nested agent's call may sit in a later file
        if not b.spawn_parent(key):
            b.spawn(key, _call_by_agent_id(b, key) or _call_by_prompt(b, key))
    b.source = path.name
    _judge_completeness(b, last_stop)
    return b.build()


# Stop reasons that end a turn on purpose; "max_tokens", "refusal", "pause_turn" do not.
_ENDING_STOPS = ("end_turn", "stop_sequence")


def _judge_completeness(b: Builder, last_stop: str) -> None:
    """Claude Code 1.x wrote the last response's `stop_reason`; 2.x writes `stop_reason: null` on
    every record of a session file, so there the last event decides: assistant text with every
    tool call answered is a run that ended cleanly."""
    if last_stop in _ENDING_STOPS:
        b.complete = True
    elif last_stop:
        b.complete, b.incomplete_reason = False, f"the last response stopped with {last_stop!r}"
    else:
        b.judge_by_last_event(
            "the session ends before a final answer (a user message or an unanswered tool call is last)"
        )


def _parse_file(b: Builder, path: Path, agent: str | None, graph: dict, line_of: dict) -> str:
    last_stop = ""
    for line, obj in records(b, path, agent):
        kind, time_s = type_and_time(obj)
        if agent is MAIN:
            note_checked_range(b, "Claude Code", to_str(obj.get("version")), *CLAUDE_CODE_CHECKED)
            b.session_id = b.session_id or to_str(obj.get("sessionId"))
            b.cwd = b.cwd or to_str(obj.get("cwd"))
            if obj.get("isSidechain") and obj.get("agentId"):
                agent_here = to_str(obj.get("agentId"))  # old versions wrote sidechains inline
            else:
                agent_here = MAIN
                if obj.get("uuid"):
                    graph[to_str(obj["uuid"])] = to_str(obj.get("parentUuid"))
                    line_of[to_str(obj["uuid"])] = line.number
        else:
            agent_here = agent
        if kind in ("user", "assistant"):
            message = obj.get("message")
            before = b.last_event(agent_here)
            add_message(
                b, message, kind, agent_here, line=line.number, time_s=time_s, tool_result=obj.get("toolUseResult")
            )
            after = b.last_event(agent_here)
            if kind == "assistant" and isinstance(get(message, "usage"), dict):
                first = None
                if after is not None and after is not before:
                    first = _first_added(b, agent_here, before)
                key = (to_str(get(message, "id")) or f"{path.name}:{line.number}", to_str(obj.get("requestId")))
                b.usage(key, usage_of(message["usage"]), agent_here, first)
                b.model = b.model or to_str(get(message, "model"))
                if agent_here is MAIN:
                    last_stop = to_str(get(message, "stop_reason"))
            elif kind == "user" and agent_here is MAIN:
                last_stop = ""
        elif kind == "summary":
            b.add(
                "system",
                agent_here,
                subtype="summary",
                text=f"Session summary: {to_str(obj.get('summary'))}",
                line=line.number,
                time_s=time_s,
            )
        elif kind == "system":
            _system(b, obj, agent_here, line.number, time_s)
            if agent_here is MAIN and obj.get("subtype") == "api_error":
                last_stop = ""
        elif kind in _SKIPPED:
            b.quiet(_SKIPPED[kind], agent_here)  # bookkeeping: counted on the thread's quiet line
        elif kind == "attachment":
            b.add(
                "system",
                agent_here,
                subtype="attachment",
                line=line.number,
                time_s=time_s,
                text=f"Attachment: {to_str(get(obj, 'attachment', 'type')) or '?'}",
            )
        else:
            b.raw(line, obj, agent_here)
    return last_stop


def _first_added(b: Builder, agent: str | None, before) -> str | None:
    thread = b.thread(agent)
    for index in range(len(thread) - 1, -1, -1):
        if thread[index] is before:
            return thread[index + 1].anchor if index + 1 < len(thread) else None
    return thread[0].anchor if thread else None


def _system(b: Builder, obj: dict, agent: str | None, line: int, time_s: float | None) -> None:
    subtype = to_str(obj.get("subtype"))
    if subtype == "compact_boundary":
        meta = obj.get("compactMetadata") or obj.get("compact_metadata") or {}
        tokens_before = to_int(get(meta, "preTokens") or get(meta, "pre_tokens"))
        add_compaction(b, agent, line, time_s, to_str(get(meta, "trigger")), tokens_before)
    elif subtype == "api_error":
        b.add(
            "error",
            agent,
            subtype="api_error",
            line=line,
            time_s=time_s,
            text=f"API error: {to_str(get(obj, 'error', 'message') or obj.get('content') or obj.get('error'))}",
        )
    elif subtype == "turn_duration":
        return  # timing bookkeeping; durations come from timestamps
    else:
        b.add(
            "system",
            agent,
            subtype=subtype or "system",
            line=line,
            time_s=time_s,
            text=to_str(obj.get("content")) or subtype,
        )


def _mark_abandoned_branches(b: Builder, graph: dict[str, str], line_of: dict[str, int]) -> None:
    """After a rewind the file holds branches; events off the last one are marked, not dropped."""
    children: dict[str, int] = {}
    for parent in graph.values():
        children[parent] = children.get(parent, 0) + 1
    if not graph or all(count <= 1 for parent, count in children.items() if parent):
        return
    leaf = max(graph, key=lambda uuid: line_of[uuid])
    on_branch, node, seen = set(), leaf, set()
    while node and node not in seen:
        seen.add(node)
        on_branch.add(line_of.get(node, -1))
        node = graph.get(node, "")
    off = {line_of[u] for u in graph} - on_branch
    b.retag(MAIN, lambda e: e.line in off, subtype="abandoned branch")


def _subagent_files(path: Path, session_id: str) -> list[tuple[Path, dict]]:
    found: list[tuple[Path, dict]] = []
    folder = path.parent / path.stem / "subagents"
    if folder.is_dir():
        for agent_file in sorted(folder.glob("agent-*.jsonl")):
            meta = read_json(agent_file.with_name(agent_file.stem + ".meta.json"))
            found.append((agent_file, meta if isinstance(meta, dict) else {}))
    for agent_file in sorted(path.parent.glob("agent-*.jsonl")):  # versions before 2.1
        head = next(iter_lines(agent_file), None)
        if head and head.obj and to_str(head.obj.get("sessionId")) in ("", session_id):
            found.append((agent_file, {}))
    return found


def _call_by_agent_id(b: Builder, agent_id: str) -> str:
    """The Task call whose result names this agent id (`toolUseResult.agentId`, or the result text)."""
    if agent_id in b.links:
        return b.links[agent_id]
    return b.find_tool(
        lambda e: (
            e.tool_name in ("Task", "Agent") and e.result is not None and f"agentId: {agent_id}" in (e.result or "")
        )
    )


def _call_by_prompt(b: Builder, key: str) -> str:
    first_user = next((e.text for e in b.thread(key) if e.kind == "user"), "")
    if not first_user:
        return ""
    return b.find_tool(
        lambda e: (
            e.tool_name in ("Task", "Agent")
            and isinstance(e.tool_input, dict)
            and to_str(e.tool_input.get("prompt")).strip() == first_user.strip()
            and not b.is_claimed(e.tool_id)
        )
    )
