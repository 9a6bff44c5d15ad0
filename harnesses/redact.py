"""Secrets never reach results: the values of the harness's secret variables (the adapter's API keys and
tokens, whatever their name, plus any variable whose name says key, token, secret or password) are
replaced in every text file of a run folder before it is published, and each replacement is noted.

The sandbox already passes only an allow-list of variables, but the CLI needs its own key, and an agent
can print it (`env`, /proc/self/environ) into its transcript; this is the last check on the way out.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
MIN_SECRET_CHARS = 8  # shorter values ('1', 'true') would redact ordinary text
PLACEHOLDER = "[REDACTED:{name}]"


@dataclass(frozen=True)
class Redaction:
    path: str  # relative to the run folder
    names: tuple[str, ...]  # which secrets' values were found
    count: int


def secret_values(names: tuple[str, ...], env: dict[str, str] | None = None) -> dict[str, str]:
    """name -> value for the named variables and any whose name looks secret, when long enough."""
    env = dict(os.environ if env is None else env)
    chosen = {n: env[n] for n in names if n in env}
    chosen.update({n: v for n, v in env.items() if SECRET_NAME.search(n)})
    return {n: v for n, v in chosen.items() if len(v) >= MIN_SECRET_CHARS}


def redact_bytes(data: bytes, secrets: dict[str, str]) -> tuple[bytes, list[str], int]:
    found, count = [], 0
    for name, value in sorted(secrets.items(), key=lambda item: -len(item[1])):
        needle = value.encode()
        hits = data.count(needle)
        if hits:
            data = data.replace(needle, PLACEHOLDER.format(name=name).encode())
            found.append(name)
            count += hits
    return data, found, count


def redact_folder(folder: Path, secrets: dict[str, str]) -> list[Redaction]:
    """Rewrite every regular file under `folder` that holds a secret's value; symlinks are not followed."""
    notes = []
    if not secrets:
        return notes
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            clean, found, count = redact_bytes(data, secrets)
            if found:
                path.write_bytes(clean)
                notes.append(Redaction(str(path.relative_to(folder)), tuple(found), count))
    return notes
