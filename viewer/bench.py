"""`python -m viewer.bench [--size-mb 100] [--browser] [--json FILE]`: generate a large Claude Code
stream transcript, render it, and print the time and peak memory of each stage; with --browser,
also how fast the page opens in Chromium (bench_browser.py). A script, not a unit test: the
numbers depend on the machine.

The generated run mixes what real runs hold: Markdown replies, thinking, shell calls with long
outputs, edits with structured patches, and subagents whose messages interleave.
"""

from __future__ import annotations

import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from scoring.options import above, at_least, opt, parse_command


def generate(path: Path, size_mb: float, seed: int = 7) -> int:
    """Write about size_mb of transcript; returns the number of lines."""
    rng = random.Random(seed)
    target = int(size_mb * 1024 * 1024)
    words = (
        "kernel tile warp block shared memory latency bandwidth roofline triton cuda launch grid "
        "fusion softmax matmul reduce vectorize coalesce occupancy register spill"
    ).split()
    written = lines = turn = 0
    with open(path, "w", encoding="utf-8") as out:

        def emit(record: dict) -> None:
            nonlocal written, lines
            text = json.dumps(record) + "\n"
            out.write(text)
            written += len(text)
            lines += 1

        emit(
            {
                "type": "system",
                "subtype": "init",
                "session_id": "bench",
                "cwd": "/work/run",
                "model": "claude-opus-4-5",
                "tools": ["Bash", "Edit", "Task"],
                "mcp_servers": [],
                "permissionMode": "bypassPermissions",
                "claude_code_version": "2.1.3",
            }
        )
        while written < target:
            turn += 1
            parent = f"toolu_task{turn // 50}" if turn % 50 > 40 else None  # stretches inside subagents
            usage = {
                "input_tokens": rng.randint(1, 50),
                "cache_creation_input_tokens": rng.randint(0, 3000),
                "cache_read_input_tokens": rng.randint(0, 90000),
                "output_tokens": rng.randint(10, 2000),
            }
            text = " ".join(rng.choice(words) for _ in range(rng.randint(20, 200)))
            blocks = [
                {"type": "thinking", "thinking": text[:400], "signature": "s"},
                {"type": "text", "text": f"## Step {turn}\n\n{text}\n\n```python\nx = {turn}\n```"},
            ]
            kind = turn % 5
            tool_id = f"toolu_{turn}"
            if turn % 50 == 40:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_task{turn // 50}",
                        "name": "Task",
                        "input": {"description": "profile", "prompt": text[:200], "subagent_type": "general-purpose"},
                    }
                )
            elif kind == 0:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": tool_id,
                        "name": "Edit",
                        "input": {
                            "file_path": f"/work/run/mod{turn % 20}.py",
                            "old_string": f"a = {turn}\n" * 5,
                            "new_string": f"a = {turn + 1}\n" * 5,
                        },
                    }
                )
            else:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": tool_id,
                        "name": "Bash",
                        "input": {"command": f"python bench.py --n {turn}"},
                    }
                )
            for block in blocks:
                emit(
                    {
                        "type": "assistant",
                        "session_id": "bench",
                        "parent_tool_use_id": parent,
                        "message": {
                            "id": f"msg_{turn}",
                            "role": "assistant",
                            "model": "claude-opus-4-5",
                            "content": [block],
                            "usage": usage,
                        },
                    }
                )
            if blocks[-1]["name"] == "Task":
                continue
            size = rng.choice((200, 500, 2_000, 2_000, 8_000, 60_000)) if kind else 100
            output = "\n".join(
                f"{i:6d} {rng.choice(words)} {rng.random():.6f} \x1b[32mok\x1b[0m" for i in range(size // 40)
            )
            result = {
                "type": "user",
                "session_id": "bench",
                "parent_tool_use_id": parent,
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output}],
                },
            }
            if kind == 0:
                result["tool_use_result"] = {
                    "filePath": f"/work/run/mod{turn % 20}.py",
                    "structuredPatch": [
                        {
                            "oldStart": 1,
                            "oldLines": 5,
                            "newStart": 1,
                            "newLines": 5,
                            "lines": [f"-a = {turn}"] * 5 + [f"+a = {turn + 1}"] * 5,
                        }
                    ],
                }
            emit(result)
        emit(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "duration_ms": 3_600_000,
                "num_turns": turn,
                "total_cost_usd": 42.0,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
        )
    return lines


@dataclass(frozen=True)
class BenchOptions:
    """The shared key=value parser's options (scoring/options.py): `--size-mb 100` reads as size_mb=100."""

    size_mb: float = opt(100.0, "transcript size to generate (MB)", allowed=above(0, "MB"))
    keep: str = opt("", "write the transcript and page here instead of a temporary folder")
    browser: bool = opt(False, "also time opening the page in Chromium")
    runs: int = opt(2, "browser page loads; the best is kept", allowed=at_least(1))
    json: str = opt("", "also write the numbers to this JSON file")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_command(BenchOptions, argv, "python -m viewer.bench", __doc__.strip())
    if isinstance(args, int):
        return args

    from . import load_transcript
    from .render.page import render_page

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="viewer-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "transcript.jsonl"
    start = time.perf_counter()
    lines = generate(source, args.size_mb)
    print(
        f"generated {source} ({source.stat().st_size / 2**20:.1f} MiB, {lines:,} lines) in {time.perf_counter() - start:.1f} s"
    )

    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    transcript = load_transcript(source)
    parsed = time.perf_counter()
    page = render_page(transcript)
    rendered = time.perf_counter()
    out = folder / "transcript.html"
    out.write_text(page, encoding="utf-8")
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    events = sum(1 for _ in transcript.all_events())
    print(f"parse  {parsed - start:6.2f} s   ({events:,} events, {transcript.tool_calls:,} tool calls)")
    print(f"render {rendered - parsed:6.2f} s   (page {len(page) / 2**20:.1f} MiB -> {out})")
    print(f"total  {rendered - start:6.2f} s   peak RSS {peak_mib:.0f} MiB (before parsing: {rss_before:.0f} MiB)")
    report = {
        "command": "python -m viewer.bench " + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "chromium": _chromium_version()},
        "transcript_mib": round(source.stat().st_size / 2**20, 1),
        "events": events,
        "parse_s": round(parsed - start, 2),
        "render_s": round(rendered - parsed, 2),
        "page_mib": round(len(page) / 2**20, 1),
        "peak_rss_mib": round(peak_mib),
    }
    if args.browser:
        from .bench_browser import time_page

        report["browser"] = time_page(out, runs=args.runs)
        for key, value in report["browser"].items():
            print(f"browser {key:24} {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def _chromium_version() -> str:
    try:
        done = subprocess.run(
            ["/usr/bin/chromium", "--version"], check=False, capture_output=True, text=True, timeout=30
        )
        return done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
