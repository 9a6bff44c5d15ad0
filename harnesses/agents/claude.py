"""Claude Code: `claude -p PROMPT --output-format stream-json --verbose`; the stream is the transcript.

Effort maps to the thinking budget (MAX_THINKING_TOKENS); session files under ~/.claude/projects are kept
in native/ as well.
"""

from pathlib import Path

from .base import Adapter, Invocation, effort_value, files_under, last_type_is

THINKING_TOKENS = {"low": "4000", "medium": "16000", "high": "32000", "xhigh": "63999"}


def build(exe: str, model: str, effort: str, prompt: str, home: Path) -> Invocation:
    effort = effort_value(effort, "claude")
    argv = [exe, "-p", prompt, "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"]
    if model:
        argv += ["--model", model]
    env = {"DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    if effort in THINKING_TOKENS:
        env["MAX_THINKING_TOKENS"] = THINKING_TOKENS[effort]
    return Invocation(tuple(argv), env)


ADAPTER = Adapter(
    name="claude",
    executables=("claude",),
    env_names=(
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    ),
    transcript_format="claude-stream",
    build=build,
    native_files=lambda home, stdout: files_under(home, ".claude/projects/**/*.jsonl", ".claude/projects/**/*.json"),
    complete_marker=last_type_is("result"),
)
