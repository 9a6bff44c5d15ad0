"""1,000 randomly truncated or mutated transcripts: every parser must return a Transcript and
every page must render. Parsers are called directly here, because load_transcript would turn a
parser's exception into an error event and hide it."""

import json
import random
import shutil
import traceback
from pathlib import Path

import pytest

from viewer.detect import UnknownFormat, detect_format
from viewer.parsers import PARSERS
from viewer.render.page import render_page

FIXTURES = Path(__file__).parent / "fixtures"
# (file to mutate, format[, file to parse when the mutated one is a sidecar]); the fixture's folder
# is copied so sidecars come along.
CASES = [
    ("claude_stream/edit.jsonl", "claude-stream"),
    ("claude_stream/parallel_subagents.jsonl", "claude-stream"),
    ("claude_stream/hostile.jsonl", "claude-stream"),
    ("claude_session_v21/sess-1.jsonl", "claude-session"),
    ("claude_session_v21/sess-1/subagents/agent-a1.jsonl", "claude-session", "claude_session_v21/sess-1.jsonl"),
    ("claude_session_legacy/sess-2.jsonl", "claude-session"),
    ("codex/rollout-2026-10-02T12-00-00-0199-codex-sess.jsonl", "codex-rollout"),
    ("codex/rollout-aborted.jsonl", "codex-rollout"),
    ("codex/exec.jsonl", "codex-exec"),
    (
        "codex_collab/rollout-2026-10-02T13-00-03-child-thread.jsonl",
        "codex-rollout",
        "codex_collab/rollout-2026-10-02T13-00-00-parent-thread.jsonl",
    ),
    ("opencode/run.jsonl", "opencode"),
    ("opencode/run_v1.jsonl", "opencode"),
    ("kimi/print.jsonl", "kimi-print"),
    ("kimi/wire.jsonl", "kimi-wire"),
    ("kimi/wire_loop_events.jsonl", "kimi-wire"),
    ("cursor/run.jsonl", "cursor"),
    ("droid_run/droid-1.jsonl", "droid"),
    ("droid_run/settings.json", "droid", "droid_run/droid-1.jsonl"),
    ("gemini/session-2026-10-03.json", "gemini-session"),
    ("gemini/session-2026-10-03.jsonl", "gemini-session"),
    ("gemini/stream.jsonl", "gemini-stream"),
    ("gemini/session-v056.jsonl", "gemini-session"),
    ("gemini/stream_v056.jsonl", "gemini-stream"),
]
RUNS = 1000
ODD_VALUES = [
    None,
    True,
    0,
    -1,
    10**30,
    1.5e308,
    "",
    "x" * 5000,
    "\x1b[31m<script>",
    [],
    [1, "a", None],
    {},
    {"type": "text"},
    {"a": {"b": {"c": [{}]}}},
    "2026-13-45T99:99:99Z",
    float("inf"),
]


def mutate_value(rng, value, depth=0):
    """Replace, drop or retype one value somewhere in a JSON structure."""
    if isinstance(value, dict) and value and depth < 6:
        key = rng.choice(list(value))
        roll = rng.random()
        if roll < 0.15:
            del value[key]
        elif roll < 0.35:
            value[key] = rng.choice(ODD_VALUES)
        else:
            value[key] = mutate_value(rng, value[key], depth + 1)
        return value
    if isinstance(value, list) and value and depth < 6:
        index = rng.randrange(len(value))
        if rng.random() < 0.2:
            value.pop(index)
        else:
            value[index] = mutate_value(rng, value[index], depth + 1)
        return value
    return rng.choice(ODD_VALUES)


def mutate_text(rng, data: bytes) -> bytes:
    lines = data.split(b"\n")
    roll = rng.random()
    if roll < 0.25:  # truncated anywhere, as when an agent is killed mid-write
        return data[: rng.randrange(len(data) + 1)]
    if roll < 0.40:  # corrupt bytes
        out = bytearray(data)
        for _ in range(rng.randint(1, 20)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out)
    if roll < 0.55:  # lines dropped, repeated or swapped
        for _ in range(rng.randint(1, 4)):
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            choice = rng.random()
            if choice < 0.33:
                lines.pop(i)
            elif choice < 0.66:
                lines.insert(i, lines[j])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            if not lines:
                break
        return b"\n".join(lines)
    # structural: retype values inside the JSON (the whole document, or one line of JSONL)
    try:
        whole = json.loads(data)
        return json.dumps(mutate_value(rng, whole)).encode()
    except ValueError:
        pass
    for _ in range(rng.randint(1, 5)):
        i = rng.randrange(len(lines))
        try:
            lines[i] = json.dumps(mutate_value(rng, json.loads(lines[i]))).encode()
        except ValueError:
            continue
    return b"\n".join(lines)


@pytest.mark.slow
def test_one_thousand_mutated_transcripts_never_crash(tmp_path):
    rng = random.Random(20261122)
    failures = []
    for run in range(RUNS):
        rel, fmt, *parsed = CASES[run % len(CASES)]
        top = Path(rel).parts[0]
        folder = tmp_path / f"run{run}"
        shutil.copytree(FIXTURES / top, folder)
        target = folder.joinpath(*Path(rel).parts[1:])
        target.write_bytes(mutate_text(rng, (FIXTURES / rel).read_bytes()))
        main = folder.joinpath(*Path(parsed[0]).parts[1:]) if parsed else target
        try:
            transcript = PARSERS[fmt].parse(main)
            render_page(transcript)
            try:
                detected = detect_format(main)
            except UnknownFormat:
                detected = None
            if detected and detected != fmt:
                PARSERS[detected].parse(main)  # the other parser must cope with it as well
        except Exception as error:  # noqa: BLE001
            where = traceback.extract_tb(error.__traceback__)[-1]
            failures.append(
                f"run {run} ({rel}): {type(error).__name__}: {error} at {Path(where.filename).name}:{where.lineno}"
            )
        shutil.rmtree(folder)
    assert failures == [], "\n".join(failures[:20])
