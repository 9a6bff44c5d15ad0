"""Which machine a run is on, and the peak (roofline) numbers that apply to it.

GPUs are identified through NVML (board name, clocks, driver) and torch (SM count, L2 size, CUDA);
the peak row comes from scoring/peaks.toml, or from `peak_tflops=`/`peak_gbps=` overrides for a GPU not
in the table. The CPU profile measures its own ceilings (an fp32 matmul and a large copy) so that the
whole pipeline runs on a machine without a GPU; its fractions are labelled and are not scores.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import threading
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

PEAKS_PATH = Path(__file__).with_name("peaks.toml")


class HardwareError(RuntimeError):
    pass


@dataclass(frozen=True)
class Peak:
    key: str  # row in peaks.toml, "override" or "cpu-measured"
    label: str
    source: str
    tflops: dict[str, float]
    bandwidth_gbps: float
    verified: bool

    def tflops_for(self, precision: str) -> float:
        if precision not in self.tflops:
            raise HardwareError(
                f"no {precision} peak for {self.label} in {PEAKS_PATH}: pass peak_tflops=<dense "
                f"{precision} TFLOPS> on the command line, or add {precision} to its row"
            )
        return self.tflops[precision]


@dataclass(frozen=True)
class Hardware:
    profile: str  # "gpu" or "cpu"
    name: str
    device: str
    sm_count: int
    l2_bytes: int
    sm_clock_max_mhz: int | None
    mem_clock_max_mhz: int | None
    memory_bytes: int
    driver: str | None
    cuda: str | None
    torch: str
    triton: str | None
    python: str
    peak: Peak
    notes: tuple[str, ...] = field(default_factory=tuple)

    def slug(self) -> str:
        """Folder name under results/: 'cpu' or the peak row key (e.g. 'h100_sxm')."""
        return (
            "cpu"
            if self.profile == "cpu"
            else self.peak.key
            if self.peak.key != "override"
            else "".join(c if c.isalnum() else "_" for c in self.name.lower()).strip("_")
        )

    def as_dict(self) -> dict:
        return asdict(self)


def load_peak_table(path: Path = PEAKS_PATH) -> dict[str, dict]:
    with open(path, "rb") as f:
        return tomllib.load(f)["gpu"]


def match_peak(name: str, sm_count: int, table: dict[str, dict] | None = None) -> Peak | None:
    table = table if table is not None else load_peak_table()
    for key, row in table.items():
        if name in row["names"] and row["sm_count"] == sm_count:
            return Peak(
                key,
                row["label"],
                f"{PEAKS_PATH.name} (datasheet)",
                dict(row["tflops"]),
                float(row["bandwidth_gbps"]),
                bool(row.get("verified", False)),
            )
    return None


def _triton_version() -> str | None:
    try:
        import triton

        return triton.__version__
    except Exception:  # absent, or present but broken: either way not usable
        return None


# NVML's init/shutdown pair is process-wide state; scoring.corpus (jobs=N) detects from several threads.
_NVML_LOCK = threading.Lock()


def _nvml_facts(index: int) -> dict:
    with _NVML_LOCK:
        return _nvml_facts_unlocked(index)


def _nvml_facts_unlocked(index: int) -> dict:
    try:
        import pynvml
    except ImportError:
        return {"notes": ("nvidia-ml-py not installed: clocks and driver not recorded",)}
    try:
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        name = pynvml.nvmlDeviceGetName(handle)
        facts = {
            "name": name.decode() if isinstance(name, bytes) else name,
            "sm_clock_max_mhz": pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM),
            "mem_clock_max_mhz": pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM),
            "driver": pynvml.nvmlSystemGetDriverVersion(),
        }
        if isinstance(facts["driver"], bytes):
            facts["driver"] = facts["driver"].decode()
        pynvml.nvmlShutdown()
        return facts
    except pynvml.NVMLError as exc:
        return {"notes": (f"NVML unavailable ({exc}): clocks and driver not recorded",)}


def _override_peak(
    base: Peak | None, peak_tflops: float | None, peak_gbps: float | None, precision: str, label: str
) -> Peak | None:
    if peak_tflops is None and peak_gbps is None:
        return base
    if base is None and (peak_tflops is None or peak_gbps is None):
        raise HardwareError("a GPU not in the peak table needs both peak_tflops= and peak_gbps=")
    tflops = dict(base.tflops) if base else {}
    if peak_tflops is not None:
        tflops[precision] = float(peak_tflops)
    bandwidth = float(peak_gbps) if peak_gbps is not None else base.bandwidth_gbps
    return Peak("override", label, "command-line override", tflops, bandwidth, False)


def detect_gpu(
    index: int, precision: str, peak_tflops: float | None = None, peak_gbps: float | None = None
) -> Hardware:
    import torch

    props = torch.cuda.get_device_properties(index)
    nvml = _nvml_facts(index)
    name = nvml.get("name", props.name)
    peak = match_peak(name, props.multi_processor_count)
    peak = _override_peak(peak, peak_tflops, peak_gbps, precision, name)
    if peak is None:
        raise HardwareError(
            f"GPU '{name}' with {props.multi_processor_count} SMs is not in {PEAKS_PATH}. Pass its dense peaks: "
            f"peak_tflops=<{precision} TFLOPS> peak_gbps=<memory GB/s>, or add a row to the table."
        )
    return Hardware(
        profile="gpu",
        name=name,
        device=f"cuda:{index}",
        sm_count=props.multi_processor_count,
        l2_bytes=int(props.L2_cache_size),
        sm_clock_max_mhz=nvml.get("sm_clock_max_mhz"),
        mem_clock_max_mhz=nvml.get("mem_clock_max_mhz"),
        memory_bytes=int(props.total_memory),
        driver=nvml.get("driver"),
        cuda=torch.version.cuda,
        torch=torch.__version__,
        triton=_triton_version(),
        python=platform.python_version(),
        peak=peak,
        notes=tuple(nvml.get("notes", ())),
    )


def measure_cpu_peak() -> Peak:
    """The CPU profile's own ceilings: the best fp32 matmul and large-copy rates seen on this machine (and torch
    version), kept in a cache. Each run measures again (best of a few) and raises the cached ceilings where it
    does better, never lowers them: a ceiling measured once, on a loaded machine, was too low and put honest
    host fractions above 1 (rejected); re-measured alone every run, the ceilings moved with the load, so two
    runs' fractions did not compare. The best seen only rises, and settles after the first few runs."""
    import torch

    size = 1024
    a, b = torch.randn(size, size), torch.randn(size, size)
    best_matmul_s = min(_timed(lambda: torch.mm(a, b)) for _ in range(5))
    src = torch.empty(32 * 2**20 // 4, dtype=torch.float32).fill_(1.0)
    dst = torch.empty_like(src)
    best_copy_s = min(_timed(lambda: dst.copy_(src)) for _ in range(5))
    measured = {
        "matmul_tflops": 2 * size**3 / best_matmul_s / 1e12,
        "copy_gbps": 2 * src.numel() * 4 / best_copy_s / 1e9,
    }
    cache_path = cpu_peak_cache_path(torch.__version__)
    best = _read_cpu_peak_cache(cache_path) or {"measured_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if any(measured[key] > best.get(key, 0.0) for key in measured):
        best.update({key: max(measured[key], best.get(key, 0.0)) for key in measured})
        _write_cpu_peak_cache(cache_path, best)
    precisions = ("fp8", "bf16", "fp16", "tf32", "fp32", "fp64")
    return Peak(
        "cpu-measured",
        "CPU (measured)",
        f"the best seen on this CPU since {best['measured_utc']} (fp32 1024^3 matmul and a 32 MiB copy; "
        f"this run measured {measured['matmul_tflops']:.3g} TFLOPS and {measured['copy_gbps']:.3g} GB/s; "
        f"one rate for every precision; kept in {cache_path}, delete it to start again). CPU-profile "
        "fractions are not scores",
        {p: best["matmul_tflops"] for p in precisions},
        best["copy_gbps"],
        False,
    )


def cpu_peak_cache_path(torch_version: str) -> Path:
    """One file per machine (CPU model, core count, host) and torch version, under the user's cache folder."""
    machine = f"{platform.processor() or platform.machine()}|{os.cpu_count()}|{platform.node()}|{torch_version}"
    digest = hashlib.sha256(machine.encode()).hexdigest()[:16]
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "ceiling" / f"cpu_peak-{digest}.json"


def _read_cpu_peak_cache(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None  # absent or unreadable: measured again and rewritten
    rates_ok = isinstance(data, dict) and all(
        isinstance(data.get(k), (int, float)) and math.isfinite(data[k]) and data[k] > 0
        for k in ("matmul_tflops", "copy_gbps")
    )
    return data if rates_ok and isinstance(data.get("measured_utc"), str) else None


def _write_cpu_peak_cache(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(data))
        os.replace(temporary, path)
    except OSError:
        pass  # a read-only home: the ceilings are measured again next run, as before


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def detect_cpu(precision: str = "fp32", peak_tflops: float | None = None, peak_gbps: float | None = None) -> Hardware:
    """The CPU profile; its ceilings are measured unless both peaks are given (reproducible host fractions)."""
    import torch

    given = peak_tflops is not None and peak_gbps is not None
    return Hardware(
        profile="cpu",
        name=f"CPU profile: {platform.processor() or platform.machine()}",
        device="cpu",
        sm_count=0,
        l2_bytes=0,
        sm_clock_max_mhz=None,
        mem_clock_max_mhz=None,
        memory_bytes=0,
        driver=None,
        cuda=None,
        torch=torch.__version__,
        triton=_triton_version(),
        python=platform.python_version(),
        peak=_override_peak(None, peak_tflops, peak_gbps, precision, "CPU (given peaks)")
        if given
        else measure_cpu_peak(),
        notes=("CPU profile: the pipeline runs end to end without a GPU; times are host times and are not scores",),
    )


def detect(device: str, precision: str, peak_tflops: float | None = None, peak_gbps: float | None = None) -> Hardware:
    """`device` is 'auto', 'cpu', 'cuda' or 'cuda:N'."""
    import torch

    if device == "cpu":
        return detect_cpu(precision, peak_tflops, peak_gbps)
    if not torch.cuda.is_available():
        if device == "auto":
            return detect_cpu(precision, peak_tflops, peak_gbps)
        raise HardwareError(
            f"device={device} asked for, but torch {torch.__version__} sees no CUDA GPU "
            "(use device=cpu for the CPU profile)"
        )
    index = int(device.split(":", 1)[1]) if device.startswith("cuda:") else 0
    return detect_gpu(index, precision, peak_tflops, peak_gbps)
