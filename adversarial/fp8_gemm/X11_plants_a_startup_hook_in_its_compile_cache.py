"""X11 through the worker's compile cache: a `.pth` startup hook, planted by one run, replaces the timer
in every later worker of the same solution before the worker takes its tamper snapshot.

The judge gives the worker HOME=<its compile cache> (scoring/judge/link.py `_spawn`), a folder the sandbox
leaves writable, kept across runs and keyed only on the solution file's contents (scoring/sandbox.py
`cache_folder`), and the worker's interpreter starts without -s/-I. So `$HOME/.local/lib/python3.X/
site-packages` is Python's user site, and every `.pth` there is executed by `site` at interpreter start-up:
before `scoring.worker` is imported, before the forbidden-op guard, the TamperSnapshot, the lockdown report
and the calibration, in code the judge's audit never reads (it is outside the solution's folder).

This solution shortens its reported times (`time.perf_counter` at half speed). Without the hook it does so
at import, as X11_patches_the_timer_at_import.py does: integrity ("replaced time.perf_counter"), and it
plants the hook. On every later run of the same file the hook has already replaced the timer when the
worker snapshots it and builds its WorkerTimer: nothing differs from the snapshot, and the forged times
pass (red team round 3: integrity on the first CPU run, passed on the second with half the time).

What the design should say: nothing a worker writes runs in a later worker (no user site: `python -s`/-I
or PYTHONNOUSERSITE, HOME outside the cache, a cache that no import path reads): integrity on every run.
"""

import os
import site
import sys
import time

from _correct import correct

EXPECTED = {
    "class": "X11",
    "cpu": {"status": "integrity", "detail": "replaced time.perf_counter"},
    "gpu": {"status": "integrity", "detail": "replaced time.perf_counter"},
}

HOOK = ("import sys, time; _p = time.perf_counter; time.perf_counter = lambda _p=_p: _p() * 0.5; "
        "sys.ceiling_startup_hook_ran = True\n")

if getattr(sys, "ceiling_startup_hook_ran", False):
    print("X11 escape: the startup hook planted by an earlier run replaced the timer before the snapshot",
          flush=True)
else:
    try:
        folder = site.getusersitepackages()
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "ceiling_x11_hook.pth"), "w") as f:
            f.write(HOOK)
    except OSError:
        pass
    _p = time.perf_counter
    time.perf_counter = lambda: _p() * 0.5


def run(state, a, a_scale):
    return correct(state, a, a_scale)
