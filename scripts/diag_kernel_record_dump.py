"""Dump what the kernel recorder saw for every call of a scorer run, to judge an X10 verdict by hand.

    python scripts/diag_kernel_record_dump.py DUMP.jsonl problem=P solution=FILE [scorer key=value ...]

Runs `python -m scoring.run` with the recorder's kernel activity on every call (or on the share given in
CEILING_KERNEL_ACTIVITY_SHARE, e.g. 0.2 as the scorer draws it) and, in the worker, writes one JSON line per
call window: the window on CUPTI's clock, whether it was timed and its event time, the kernels the recorder
gave the call (name, start, end, stream), how many of its records were cut to the physically possible
(RecordBounds in scoring/kernel_record.py), and every raw kernel record from the window's pad to 50 ms after
it, attributed or not, with its correlation id and when that launch call started. A diagnostic, not a score:
the scorer's own result is written as usual, and its X10 verdicts stand or fall on what this shows.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Loaded by every Python process started with this PYTHONPATH (the scorer's workers included).
SITECUSTOMIZE = r'''
import json, os
DUMP = os.environ.get("CEILING_KERNEL_RECORD_DUMP")
if DUMP:
    import scoring.kernel_record as kernel_record
    kernel_record.KERNEL_ACTIVITY_SHARE = float(os.environ.get("CEILING_KERNEL_ACTIVITY_SHARE", "1.0"))
    original_collect = kernel_record.KernelRecorder.collect
    LATE_NS = 50_000_000

    def collect(self, windows):
        self._lib.cuptiActivityFlushAll(kernel_record.FLUSH_FORCED)
        with self._lock:
            completed, self._completed = self._completed, []
        for buffer in completed:
            self._read(*buffer)
        raw_kernels, launched = list(self._kernels), {c: stamp for stamp, c, _ in self._api}
        calls = original_collect(self, windows)
        with open(DUMP, "a") as sink:
            for window, call in zip(windows, calls):
                near = [k for k in raw_kernels if window.pad_start_ns <= k[2] <= window.end_ns + LATE_NS]
                sink.write(json.dumps({
                    "pad_start_ns": window.pad_start_ns, "start_ns": window.start_ns, "end_ns": window.end_ns,
                    "timed": window.timed, "event_ms": window.event_ms, "busy_ms": call.busy_ms(),
                    "records_corrected": call.records_corrected,
                    "launch_names": sorted(window.launch_names)[:8],
                    "given": [list(k) for k in call.kernels],
                    "near": [{"correlation": c, "name": n[:80], "start": s, "end": e, "stream": st,
                              "launched": launched.get(c)} for c, n, s, e, st in near][:40]}) + "\n")
        return calls

    kernel_record.KernelRecorder.collect = collect
'''


def main(argv: list[str]) -> int:
    if len(argv) < 2 or "=" in argv[0]:
        print(__doc__)
        return 2
    dump = Path(argv[0]).resolve()
    dump.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "sitecustomize.py").write_text(SITECUSTOMIZE)
        env = dict(
            os.environ,
            CEILING_KERNEL_RECORD_DUMP=str(dump),
            PYTHONPATH=os.pathsep.join(filter(None, [folder, str(REPO), os.environ.get("PYTHONPATH")])),
        )
        return subprocess.run([sys.executable, "-m", "scoring.run", *argv[1:]], cwd=REPO, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
