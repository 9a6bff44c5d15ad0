"""What the adversaries of this folder read to guess whether the grader is watching a call (X13).

Every signal is something a solution can observe from inside a scoring worker without reading a grader
file: an active Python dispatch mode (the old scorer's forbidden-operator mode on checked calls), the
backend flags the old scorer switched on around checked calls only (deterministic algorithms and
`fill_uninitialized_memory`, its poisoning of torch.empty), the process's argv and environment (an
audit target, a profiler's injection variables, also as the process started: /proc/self/environ),
a grader frame on the stack that says the call is audited, and the libraries mapped into the process: a
profiler's injection library stays in /proc/self/maps whatever the environment is scrubbed to. Only a
library mapped since the solution was imported says anything about a call: PyTorch's CUDA build maps
libcupti into every process, and Ceiling's workers load CUPTI's profiler libraries (libnvperf_host and
_target) into every GPU worker before the import, so a library there from the start is no sign, and an
attacker who took it for one would be honest on every call. Seen on an H100 with
Nsight Compute 2025.3: a process under ncu maps libTreeLauncherTargetInjection.so,
libInterceptorInjectionTarget.so, libcuda-injection.so and libnvperf_host/target.so, and has
NVTX_INJECTION64_PATH and NV_COMPUTE_PROFILER_PERFWORKS_DIR set; a plain torch 2.11 process maps none of
them (but does map libcupti.so.13). Not a case.
"""

import os
import sys
import time

import torch
from torch.utils import deterministic
from torch.utils._python_dispatch import _get_current_dispatch_mode

PROFILER_VARIABLES = ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "NV_COMPUTE_PROFILER_PERFWORKS_DIR")
PROFILER_VARIABLE_PREFIXES = ("NSIGHT", "NV_TPS", "NSYS")
# Nsight Compute and Nsight Systems inject these into the profiled process; nvperf reads the counters.
PROFILER_LIBRARIES = ("ToolsInjection", "TreeLauncher", "InterceptorInjection", "cuda-injection", "nvperf")
CUPTI = "libcupti"
MAPS_REFRESH_S = 0.5  # /proc/self/maps is read at most this often: parsing it costs host time per call


def mapped_files() -> set[str]:
    try:
        with open("/proc/self/maps") as maps:
            return {line.split(maxsplit=5)[-1].strip() for line in maps if "/" in line}
    except OSError:
        return set()


def environment_at_start() -> set[str]:
    """Variable names the process started with (/proc/self/environ: os.environ's deletions do not reach it)."""
    try:
        with open("/proc/self/environ", "rb") as environ:
            return {entry.split(b"=", 1)[0].decode(errors="replace") for entry in environ.read().split(b"\0") if entry}
    except OSError:
        return set()


def backend_flags() -> tuple[bool, bool]:
    return torch.are_deterministic_algorithms_enabled(), bool(deterministic.fill_uninitialized_memory)


MAPPED_AT_IMPORT = mapped_files()
ENVIRONMENT_AT_START = environment_at_start()
FLAGS_AT_IMPORT = backend_flags()
_maps_verdict = [-1e9, False]  # (when read, profiler library seen)


def dispatch_mode_active() -> bool:
    return _get_current_dispatch_mode() is not None


def flags_switched() -> bool:
    """The grader switched allocation poisoning or deterministic mode on (or off) since the import."""
    return backend_flags() != FLAGS_AT_IMPORT


def audit_process() -> bool:
    return any("audit_target" in arg for arg in sys.argv)


def profiler_environment() -> bool:
    names = ENVIRONMENT_AT_START | set(os.environ)
    return any(name in names for name in PROFILER_VARIABLES) or \
        any(name.startswith(PROFILER_VARIABLE_PREFIXES) for name in names)


def profiler_libraries() -> bool:
    """A profiler's library (or CUPTI) mapped since the import: a profiler attached mid-run."""
    now = time.monotonic()
    if now - _maps_verdict[0] > MAPS_REFRESH_S:
        new = mapped_files() - MAPPED_AT_IMPORT
        seen = any(tag in path for path in new for tag in (*PROFILER_LIBRARIES, CUPTI))
        _maps_verdict[:] = [now, seen]
    return _maps_verdict[1]


def audited_call_on_the_stack(depth: int = 16) -> bool:
    """A grader frame below this call says the call is audited: a local `audited = True` (the in-process
    worker of old), or the judge's order `message` with "audited": true (scoring/worker/server.py's
    CallServer.call; the frame-local name was lost when the worker became the judge's server, and the H100
    corpus of 2026-11-27 17:00 caught X20_residual_same_kernel_name_when_audited for that reason alone)."""
    frame = sys._getframe(1)
    for _ in range(depth):
        if frame is None:
            return False
        if frame.f_locals.get("audited") is True:
            return True
        message = frame.f_locals.get("message")
        if isinstance(message, dict) and message.get("audited") is True:
            return True
        frame = frame.f_back
    return False


def profiled() -> bool:
    """Inside an audit or profiler process: an audit target, profiler variables or libraries."""
    return audit_process() or profiler_environment() or profiler_libraries()


def watched() -> bool:
    """Any sign that this call is checked or profiled."""
    return dispatch_mode_active() or flags_switched() or profiled()
