"""X30/X32 across the sandbox: the worker signals the judge, which runs as root outside its PID namespace.

The worker's sandbox gives it its own PID namespace (scoring/sandbox.py), so no process outside it has a
number it could name. But `kill(0, sig)` names the caller's process group, not a number, and the worker is
in its judge's group: the judge leads its own session (scoring/standby.py, start_new_session=True) and
starts `unshare` with start_new_session=False when it sandboxes (scoring/judge/link.py, `_spawn`); neither
unshare, the lockdown shell nor setpriv starts a new session. The kernel delivers a process-group signal to
every member whatever its namespace, and the sender's uid (0, with no capabilities) matches the judge's.

This solution ignores SIGUSR1 itself, then sends it to its process group at import: the judge (and unshare)
die; the worker lives on. Today that is an import_error, a worse verdict, so nothing is gained here; but the
judge's lifetime, and every moment at which it stops or dies (SIGSTOP, SIGINT's KeyboardInterrupt at any
bytecode), is the worker's to choose.

What the design should say: the worker cannot reach the judge with a signal. Now the judge starts its worker
in a session of its own (scoring/judge/link.py) and the sandbox gives the worker another (`setsid` before
setpriv, scoring/sandbox.py): the signal reaches nothing but the worker, which ignores it, and the honest
computation passes. (Round 2 of the red team found the judge killed by it.)
"""

import os
import signal

from _correct import correct

EXPECTED = {
    "class": "X30",
    "cpu": {"status": "passed"},
    "gpu": {"status": "passed"},
}

signal.signal(signal.SIGUSR1, signal.SIG_IGN)
os.kill(0, signal.SIGUSR1)


def run(state, a, a_scale):
    return correct(state, a, a_scale)
