"""Who the agent runs as: never root. When the harness is root (as on the GPU machines and in CI), the
sandbox is started as the dedicated unprivileged user `ceiling-agent` (scripts/setup.sh creates it),
through `setpriv`, with every capability, the bounding set and supplementary groups dropped and
no_new_privs set; bubblewrap then runs unprivileged, in a user namespace it creates itself. When the
harness is an ordinary user, the sandbox runs as that user, which is already unprivileged.

bubblewrap, once unprivileged, resolves the folders it binds as that user, and the harness's own
installs may sit where that user cannot walk (pyenv under /root, a CLI under a 0700 home). So, as root,
the command first enters a private mount namespace (`unshare --mount`), binds each such folder onto a
staging folder the agent can reach, and only then drops to the agent user: the staging mounts live and
die with that namespace and never appear on the host.
"""

from __future__ import annotations

import os
import pwd
from dataclasses import dataclass
from pathlib import Path

AGENT_USER = "ceiling-agent"
SETUP_HINT = (
    f"create it with `useradd --system --no-create-home --home-dir /nonexistent --shell "
    f"/usr/sbin/nologin {AGENT_USER}` (scripts/setup.sh does this as root), or run the harness as "
    f"an ordinary user"
)
STAGE_SCRIPT = 'set -e; while [ "$1" != "--" ]; do mount --rbind "$1" "$2"; shift 2; done; shift; exec "$@"'


class AgentUserError(RuntimeError):
    pass


@dataclass(frozen=True)
class AgentUser:
    name: str
    uid: int
    gid: int
    switch: bool  # True when the harness is root and must drop to this user


def agent_user(name: str = AGENT_USER) -> AgentUser:
    """The user the sandbox runs as: `name` when the harness is root, else the harness's own user."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return AgentUser(entry.pw_name, os.geteuid(), os.getegid(), False)
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        raise AgentUserError(
            f"the harness runs as root but the unprivileged user {name!r} does not exist: {SETUP_HINT}"
        ) from None
    if entry.pw_uid == 0:
        raise AgentUserError(f"user {name!r} has uid 0: the agent must not be root; {SETUP_HINT}")
    return AgentUser(entry.pw_name, entry.pw_uid, entry.pw_gid, True)


def hand_over(path: Path, user: AgentUser, mode: int = 0o700) -> None:
    """Make `path` (a folder the harness made) the agent's own."""
    if user.switch:
        os.chown(path, user.uid, user.gid)
    os.chmod(path, mode)


def wrap(bwrap_argv: list[str], user: AgentUser, staged: list[tuple[Path, Path]]) -> list[str]:
    """The command that starts `bwrap_argv` as `user`, with each (source, staging folder) bound first."""
    if not user.switch:
        return bwrap_argv
    drop = [
        "setpriv",
        f"--reuid={user.uid}",
        f"--regid={user.gid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]
    pairs = [str(p) for source, target in staged for p in (source, target)]
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        STAGE_SCRIPT,
        "sh",
        *pairs,
        "--",
        *drop,
        *bwrap_argv,
    ]
