"""Hardware counters of one call, read inside the calling process: CUPTI's range profiler through ctypes.

This module owns the in-process counter reader: the ctypes mirror of the CUPTI 13.0 range-profiler,
profiler-host and profiler-target parameter structs it uses (cupti_range_profiler.h, cupti_profiler_host.h,
cupti_profiler_target.h, cupti_target.h), and `CounterReader`, which collects a set of metrics for every
kernel one Python call launches. It exists so that the scorer can audit which tensor-core precision a
solution's kernels used without starting the solution under Nsight Compute, a separate process the solution
could recognise (scoring/audit.py).

How: the range profiler in auto-range mode (one range per kernel launch) with kernel replay (CUPTI saves the
memory a kernel can write, runs the kernel once per counter pass and restores the memory between passes,
so one call of the function collects every pass and its outputs are those of an unprofiled call). The
metrics are scheduled once into a config image by the profiler host object; each `profile()` enables the
range profiler on the current CUDA context, runs the call between Start and Stop, decodes the counter data
image and evaluates the metrics per range, then disables the profiler again, so that no other call is
replayed.

libcupti is the one scoring/kernel_record.py finds (`find_libcupti`): the activity record of that module and
this reader share one library instance in the process. Nothing here raises to the caller: a reader that
could not be built reports `available == False` and a one-line `why_not` naming the failing call and its
error code, and `profile()` always returns the call's own result.
"""

from __future__ import annotations

import ctypes
import os

from scoring import kernel_record
from scoring.audit import EXTRA_METRICS, PRECISION_METRICS

# What the precision audit collects: tensor-pipe operations by source precision, kernel time, DRAM traffic.
AUDIT_METRICS: tuple[str, ...] = tuple(PRECISION_METRICS.values()) + tuple(EXTRA_METRICS)
# Kernels (auto ranges) one profiled call may launch; the counter data image is sized for this many. A call
# that launches more loses the rest (DecodeData reports them dropped) and the profile is refused, since a
# partial count could hide work.
MAX_RANGES = 64
NVPERF_LIBRARIES = ("libnvperf_target.so", "libnvperf_host.so")  # beside libcupti in the wheel and toolkit
CUDA_DRIVER_LIBRARY = "libcuda.so.1"

CUPTI_SUCCESS = 0
CUDA_SUCCESS = 0
# Enum values (each enum field is a 4-byte int in the structs).
CUPTI_PROFILER_TYPE_RANGE_PROFILER = 0  # CUpti_ProfilerType
CUPTI_AUTO_RANGE = 1  # CUpti_ProfilerRange.CUPTI_AutoRange
CUPTI_KERNEL_REPLAY = 2  # CUpti_ProfilerReplayMode.CUPTI_KernelReplay
CUPTI_PROFILER_RANGE_PROFILING = 0  # CUpti_Profiler_API
SUPPORT_LEVELS = {0: "unknown", 1: "unsupported", 2: "disabled", 3: "supported"}  # CUpti_Profiler_Support_Level
RANGE_DELIMITER = b"/"  # joins nested range names; auto ranges are not nested
# Nesting: auto ranges are one level deep; the first pass targets level 1 (CUPTI's range_profiling sample).
NESTING_LEVELS = 1
MIN_NESTING_LEVEL = 1
FIRST_PASS_INDEX = 0
TARGET_NESTING_LEVEL = 1


class CuptiCallError(RuntimeError):
    """A CUPTI (or CUDA driver) call returned an error: the function, its result code and CUPTI's name for it."""

    def __init__(self, function: str, code: int, text: str | None = None, api: str = "CUPTI"):
        self.function, self.code = function, code
        super().__init__(f"{function} returned {api} error {code}" + (f" ({text})" if text else ""))


class ProfileRefused(RuntimeError):
    """The counters were read but cannot be trusted as the whole call (passes missing, ranges dropped)."""


# -- parameter structs (x86-64 natural alignment; every one starts with structSize and pPriv) ----------------
_size_t, _void_p, _enum, _u8, _u16, _u32 = (
    ctypes.c_size_t,
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_uint8,
    ctypes.c_uint16,
    ctypes.c_uint32,
)
_HEADER = [("structSize", _size_t), ("pPriv", _void_p)]


def struct_size(cls: type[ctypes.Structure]) -> int:
    """The header's <Name>_STRUCT_SIZE: offsetof(last field) + sizeof(last field), not sizeof(struct),
    which would count trailing padding CUPTI does not expect (e.g. SetConfig: 90, not 96)."""
    last = getattr(cls, cls._fields_[-1][0])
    return last.offset + last.size


class _Params(ctypes.Structure):
    """A CUPTI params struct: zero-filled (pPriv NULL) with structSize set to the documented value."""

    def __init__(self, **fields):
        super().__init__(**fields)
        self.structSize = struct_size(type(self))


class CUpti_Profiler_Initialize_Params(_Params):  # cupti_profiler_target.h
    _fields_ = _HEADER


class CUpti_Profiler_DeInitialize_Params(_Params):  # cupti_profiler_target.h
    _fields_ = _HEADER


class CUpti_Device_GetChipName_Params(_Params):  # cupti_target.h
    _fields_ = _HEADER + [("deviceIndex", _size_t), ("pChipName", ctypes.c_char_p)]


class CUpti_Profiler_GetCounterAvailability_Params(_Params):  # cupti_profiler_target.h
    _fields_ = _HEADER + [
        ("ctx", _void_p),
        ("counterAvailabilityImageSize", _size_t),
        ("pCounterAvailabilityImage", _void_p),
    ]


class CUpti_Profiler_DeviceSupported_Params(_Params):  # cupti_profiler_target.h
    _fields_ = _HEADER + [
        ("cuDevice", ctypes.c_int),
        ("isSupported", _enum),
        ("architecture", _enum),
        ("sli", _enum),
        ("vGpu", _enum),
        ("confidentialCompute", _enum),
        ("cmp", _enum),
        ("wsl", _enum),
        ("api", _enum),
    ]


class CUpti_Profiler_Host_Initialize_Params(_Params):  # cupti_profiler_host.h
    _fields_ = _HEADER + [
        ("profilerType", _enum),
        ("pChipName", ctypes.c_char_p),
        ("pCounterAvailabilityImage", _void_p),
        ("pHostObject", _void_p),
    ]


class CUpti_Profiler_Host_Deinitialize_Params(_Params):
    _fields_ = _HEADER + [("pHostObject", _void_p)]


class CUpti_Profiler_Host_ConfigAddMetrics_Params(_Params):
    _fields_ = _HEADER + [
        ("pHostObject", _void_p),
        ("ppMetricNames", ctypes.POINTER(ctypes.c_char_p)),
        ("numMetrics", _size_t),
    ]


class CUpti_Profiler_Host_GetConfigImageSize_Params(_Params):
    _fields_ = _HEADER + [("pHostObject", _void_p), ("configImageSize", _size_t)]


class CUpti_Profiler_Host_GetConfigImage_Params(_Params):
    _fields_ = _HEADER + [("pHostObject", _void_p), ("configImageSize", _size_t), ("pConfigImage", _void_p)]


class CUpti_Profiler_Host_GetNumOfPasses_Params(_Params):
    _fields_ = _HEADER + [("configImageSize", _size_t), ("pConfigImage", _void_p), ("numOfPasses", _size_t)]


class CUpti_Profiler_Host_EvaluateToGpuValues_Params(_Params):
    _fields_ = _HEADER + [
        ("pHostObject", _void_p),
        ("pCounterDataImage", _void_p),
        ("counterDataImageSize", _size_t),
        ("rangeIndex", _size_t),
        ("ppMetricNames", ctypes.POINTER(ctypes.c_char_p)),
        ("numMetrics", _size_t),
        ("pMetricValues", ctypes.POINTER(ctypes.c_double)),
    ]


class CUpti_RangeProfiler_Enable_Params(_Params):  # cupti_range_profiler.h
    _fields_ = _HEADER + [("ctx", _void_p), ("pRangeProfilerObject", _void_p)]


class CUpti_RangeProfiler_Disable_Params(_Params):
    _fields_ = _HEADER + [("pRangeProfilerObject", _void_p)]


class CUpti_RangeProfiler_Start_Params(_Params):
    _fields_ = _HEADER + [("pRangeProfilerObject", _void_p)]


class CUpti_RangeProfiler_Stop_Params(_Params):
    _fields_ = _HEADER + [
        ("pRangeProfilerObject", _void_p),
        ("passIndex", _size_t),
        ("targetNestingLevel", _size_t),
        ("isAllPassSubmitted", _u8),
    ]


class CUpti_RangeProfiler_SetConfig_Params(_Params):
    _fields_ = _HEADER + [
        ("pRangeProfilerObject", _void_p),
        ("configSize", _size_t),
        ("pConfig", _void_p),
        ("counterDataImageSize", _size_t),
        ("pCounterDataImage", _void_p),
        ("range", _enum),
        ("replayMode", _enum),
        ("maxRangesPerPass", _size_t),
        ("numNestingLevels", _u16),
        ("minNestingLevel", _u16),
        ("passIndex", _size_t),
        ("targetNestingLevel", _u16),
    ]


class CUpti_RangeProfiler_DecodeData_Params(_Params):
    _fields_ = _HEADER + [("pRangeProfilerObject", _void_p), ("numOfRangeDropped", _size_t)]


class CUpti_RangeProfiler_GetCounterDataSize_Params(_Params):
    _fields_ = _HEADER + [
        ("pRangeProfilerObject", _void_p),
        ("pMetricNames", ctypes.POINTER(ctypes.c_char_p)),
        ("numMetrics", _size_t),
        ("maxNumOfRanges", _size_t),
        ("maxNumRangeTreeNodes", _u32),
        ("counterDataSize", _size_t),
    ]


class CUpti_RangeProfiler_CounterDataImage_Initialize_Params(_Params):
    _fields_ = _HEADER + [("pRangeProfilerObject", _void_p), ("counterDataSize", _size_t), ("pCounterData", _void_p)]


class CUpti_RangeProfiler_GetCounterDataInfo_Params(_Params):
    _fields_ = _HEADER + [
        ("pCounterDataImage", _void_p),
        ("counterDataImageSize", _size_t),
        ("numTotalRanges", _size_t),
    ]


class CUpti_RangeProfiler_CounterData_GetRangeInfo_Params(_Params):
    _fields_ = _HEADER + [
        ("pCounterDataImage", _void_p),
        ("counterDataImageSize", _size_t),
        ("rangeIndex", _size_t),
        ("rangeDelimiter", ctypes.c_char_p),
        ("rangeName", ctypes.c_char_p),
    ]


PARAMS_STRUCTS = (
    CUpti_Profiler_Initialize_Params,
    CUpti_Profiler_DeInitialize_Params,
    CUpti_Device_GetChipName_Params,
    CUpti_Profiler_GetCounterAvailability_Params,
    CUpti_Profiler_DeviceSupported_Params,
    CUpti_Profiler_Host_Initialize_Params,
    CUpti_Profiler_Host_Deinitialize_Params,
    CUpti_Profiler_Host_ConfigAddMetrics_Params,
    CUpti_Profiler_Host_GetConfigImageSize_Params,
    CUpti_Profiler_Host_GetConfigImage_Params,
    CUpti_Profiler_Host_GetNumOfPasses_Params,
    CUpti_Profiler_Host_EvaluateToGpuValues_Params,
    CUpti_RangeProfiler_Enable_Params,
    CUpti_RangeProfiler_Disable_Params,
    CUpti_RangeProfiler_Start_Params,
    CUpti_RangeProfiler_Stop_Params,
    CUpti_RangeProfiler_SetConfig_Params,
    CUpti_RangeProfiler_DecodeData_Params,
    CUpti_RangeProfiler_GetCounterDataSize_Params,
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
    CUpti_RangeProfiler_GetCounterDataInfo_Params,
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params,
)


def _load_library(path: str, global_symbols: bool = False):
    """dlopen through ctypes (one place, so that tests can stand a fake library in)."""
    return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL if global_symbols else ctypes.DEFAULT_MODE)


def _byte_buffer(size: int) -> ctypes.Array:
    """A zero-filled buffer for a config or counter data image (malloc'd: 16-byte aligned, CUPTI wants 8)."""
    return (ctypes.c_uint8 * size)()


class _Session:
    """One profile() call's range profiler object and the images it points at (kept alive until Disable)."""

    def __init__(self):
        self.profiler_object: int | None = None
        self.counter_data: ctypes.Array | None = None
        self.started = False
        self.stopped = False


class CounterReader:
    """In-process hardware counters of one call: CUPTI's range profiler, auto range (one range per kernel),
    kernel replay."""

    def __init__(self, metrics: tuple[str, ...] = AUDIT_METRICS, device_index: int = 0, max_ranges: int = MAX_RANGES):
        self.metrics = tuple(metrics)
        self.device_index = device_index
        self.max_ranges = max_ranges
        self.why_not: str | None = None  # the latest failure: building the reader, or the last profile()
        self.path: str | None = None
        self.cupti_version: int | None = None
        self.chip: str | None = None
        self.device_support: str | None = None
        self.counter_availability: str | None = None
        self.passes: int | None = None  # counter passes the metrics need; kernel replay runs each kernel once per pass
        self.last_ranges_dropped = 0
        self._ready = False
        self._lib = None
        self._cuda = None
        self._nvperf: list = []  # kept loaded: CUPTI's profiler host resolves its symbols from them
        self._declared: set[str] = set()
        self._profiler_initialized = False
        self._host_object: int | None = None
        self._availability_image: ctypes.Array | None = None
        self._chip_name = b""  # kept for the host object's lifetime, which may hold on to the pointer
        self._config_image: ctypes.Array | None = None
        # Metric names as C strings, for every call that takes them (the array keeps the bytes alive).
        self._metric_names = (ctypes.c_char_p * len(self.metrics))(*[m.encode() for m in self.metrics])
        try:
            self._build()
            self._ready = True
        except Exception as exc:  # noqa: BLE001 -- a reader that cannot be built says why; it never breaks the caller
            self.why_not = _reason(exc)
            self._release()

    @property
    def available(self) -> bool:
        """The reader was built (libraries loaded, host object and config image ready)."""
        return self._ready

    def describe(self) -> dict:
        return {
            "tool": f"CUPTI range profiler in process ({self.path})" if self._ready else None,
            "chip": self.chip,
            "passes": self.passes,
            "metrics": list(self.metrics),
            "counter_availability": self.counter_availability,
            "device_support": self.device_support,
            "why_not": self.why_not,
        }

    # -- building: libraries, profiler, host object, config image --------------------------------------------
    def _build(self) -> None:
        self.path = kernel_record.find_libcupti()
        if self.path is None:
            raise FileNotFoundError("CUPTI library (libcupti.so) not found")
        folder = os.path.dirname(self.path)
        for name in NVPERF_LIBRARIES:
            # CUPTI dlopens these by name when the profiler host starts; loading them first, globally, from
            # libcupti's own folder makes that dlopen find these copies whatever the library search path.
            candidate = os.path.join(folder, name)
            if os.path.exists(candidate):
                self._nvperf.append(_load_library(candidate, global_symbols=True))
        self._lib = _load_library(self.path)
        self._cuda = _load_library(CUDA_DRIVER_LIBRARY)
        # The driver must be initialised for the chip name and device queries; cuInit creates no context.
        self._cuda_call("cuInit", ctypes.c_uint(0))
        version = ctypes.c_uint32(0)
        if self._lib.cuptiGetVersion(ctypes.byref(version)) == CUPTI_SUCCESS:
            self.cupti_version = version.value
        self._call("cuptiProfilerInitialize", CUpti_Profiler_Initialize_Params())
        self._profiler_initialized = True
        chip = CUpti_Device_GetChipName_Params(deviceIndex=self.device_index)
        self._call("cuptiDeviceGetChipName", chip)
        self.chip = (chip.pChipName or b"").decode()
        self.device_support = self._device_support()
        self._availability_image = self._counter_availability()
        self._chip_name = self.chip.encode()
        host = CUpti_Profiler_Host_Initialize_Params(
            profilerType=CUPTI_PROFILER_TYPE_RANGE_PROFILER,
            pChipName=self._chip_name,
            pCounterAvailabilityImage=(
                ctypes.addressof(self._availability_image) if self._availability_image is not None else None
            ),
        )
        self._call("cuptiProfilerHostInitialize", host)
        self._host_object = host.pHostObject
        self._call(
            "cuptiProfilerHostConfigAddMetrics",
            CUpti_Profiler_Host_ConfigAddMetrics_Params(
                pHostObject=self._host_object, ppMetricNames=self._metric_names, numMetrics=len(self.metrics)
            ),
        )
        size = CUpti_Profiler_Host_GetConfigImageSize_Params(pHostObject=self._host_object)
        self._call("cuptiProfilerHostGetConfigImageSize", size)
        self._config_image = _byte_buffer(size.configImageSize)
        self._call(
            "cuptiProfilerHostGetConfigImage",
            CUpti_Profiler_Host_GetConfigImage_Params(
                pHostObject=self._host_object,
                configImageSize=size.configImageSize,
                pConfigImage=ctypes.addressof(self._config_image),
            ),
        )
        passes = CUpti_Profiler_Host_GetNumOfPasses_Params(
            configImageSize=size.configImageSize, pConfigImage=ctypes.addressof(self._config_image)
        )
        self._call("cuptiProfilerHostGetNumOfPasses", passes)
        self.passes = passes.numOfPasses

    def _device_support(self) -> str:
        """CUPTI's verdict on range profiling on this device, for the record (a refusal shows up again, with
        its code, at cuptiRangeProfilerEnable; this names which condition: vGPU, confidential computing...)."""
        device = ctypes.c_int(0)
        try:
            self._cuda_call("cuDeviceGet", ctypes.byref(device), ctypes.c_int(self.device_index))
            params = CUpti_Profiler_DeviceSupported_Params(cuDevice=device.value, api=CUPTI_PROFILER_RANGE_PROFILING)
            self._call("cuptiProfilerDeviceSupported", params)
        except CuptiCallError as exc:
            return f"not queried ({exc})"
        flags = {
            name: SUPPORT_LEVELS.get(getattr(params, name), str(getattr(params, name)))
            for name in ("architecture", "sli", "vGpu", "confidentialCompute", "cmp", "wsl")
        }
        overall = SUPPORT_LEVELS.get(params.isSupported, str(params.isSupported))
        unsupported = [f"{name} {level}" for name, level in flags.items() if level != "supported"]
        return overall + (f" ({', '.join(unsupported)})" if unsupported else "")

    def _counter_availability(self) -> ctypes.Array | None:
        """The context's counter availability image, when a context is current; else None, which the host
        API accepts for chips known to this CUPTI release (Hopper is): the image is for newer chips, and
        CUPTI can only produce it from a context, which usually does not exist yet when the reader is built."""
        context = self._current_context()
        if not context:
            self.counter_availability = "none (no CUDA context when the reader was built; CUPTI's chip table)"
            return None
        params = CUpti_Profiler_GetCounterAvailability_Params(ctx=context)
        self._call("cuptiProfilerGetCounterAvailability", params)  # size query: the image pointer is NULL
        image = _byte_buffer(params.counterAvailabilityImageSize)
        params.pCounterAvailabilityImage = ctypes.addressof(image)
        self._call("cuptiProfilerGetCounterAvailability", params)
        self.counter_availability = f"image of the current context ({len(image)} bytes)"
        return image

    # -- one profiled call ----------------------------------------------------------------------------------
    def profile(self, fn):
        """(fn(), [{"range": name, metric: value, ...} per kernel]). Never raises for the profiler's sake:
        a failure before the call runs fn unprofiled, a failure after it returns (result, []); either sets
        `why_not`. An exception from fn itself propagates, after the profiler is disabled."""
        if not self._ready:
            return fn(), []
        session = _Session()
        try:
            self._begin(session)
        except Exception as exc:  # noqa: BLE001 -- any failure: the call runs unprofiled
            self.why_not = f"before the call: {_reason(exc)}"
            self._finish(session)
            return fn(), []
        try:
            result = fn()
        except BaseException:
            self._finish(session)
            raise
        try:
            ranges = self._collect(session)
            self.why_not = None
        except Exception as exc:  # noqa: BLE001 -- any failure: the call's result still goes back
            self.why_not = f"after the call: {_reason(exc)}"
            ranges = []
        if not self._finish(session):
            ranges = []
        return result, ranges

    def _begin(self, session: _Session) -> None:
        context = self._current_context()
        if not context:
            raise RuntimeError("no current CUDA context (initialise CUDA, e.g. through torch, before profile())")
        enable = CUpti_RangeProfiler_Enable_Params(ctx=context)
        self._call("cuptiRangeProfilerEnable", enable)
        session.profiler_object = enable.pRangeProfilerObject
        size = CUpti_RangeProfiler_GetCounterDataSize_Params(
            pRangeProfilerObject=session.profiler_object,
            pMetricNames=self._metric_names,
            numMetrics=len(self.metrics),
            maxNumOfRanges=self.max_ranges,
            maxNumRangeTreeNodes=self.max_ranges,
        )
        self._call("cuptiRangeProfilerGetCounterDataSize", size)
        session.counter_data = _byte_buffer(size.counterDataSize)
        initialize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params(
            pRangeProfilerObject=session.profiler_object,
            counterDataSize=size.counterDataSize,
            pCounterData=ctypes.addressof(session.counter_data),
        )
        self._call("cuptiRangeProfilerCounterDataImageInitialize", initialize)
        self._call(
            "cuptiRangeProfilerSetConfig",
            CUpti_RangeProfiler_SetConfig_Params(
                pRangeProfilerObject=session.profiler_object,
                configSize=len(self._config_image),
                pConfig=ctypes.addressof(self._config_image),
                counterDataImageSize=size.counterDataSize,
                pCounterDataImage=ctypes.addressof(session.counter_data),
                range=CUPTI_AUTO_RANGE,
                replayMode=CUPTI_KERNEL_REPLAY,
                maxRangesPerPass=self.max_ranges,
                numNestingLevels=NESTING_LEVELS,
                minNestingLevel=MIN_NESTING_LEVEL,
                passIndex=FIRST_PASS_INDEX,
                targetNestingLevel=TARGET_NESTING_LEVEL,
            ),
        )
        # Work queued before the call finishes outside the profiled window.
        self._cuda_call("cuCtxSynchronize")
        self._call(
            "cuptiRangeProfilerStart", CUpti_RangeProfiler_Start_Params(pRangeProfilerObject=session.profiler_object)
        )
        session.started = True

    def _collect(self, session: _Session) -> list[dict]:
        self._cuda_call("cuCtxSynchronize")  # every kernel of the call (and its replays) has run
        stop = CUpti_RangeProfiler_Stop_Params(pRangeProfilerObject=session.profiler_object)
        session.stopped = True  # attempted: a failed Stop is not retried, Disable follows either way
        self._call("cuptiRangeProfilerStop", stop)
        if not stop.isAllPassSubmitted:
            # Kernel replay runs every pass inside each launch; only user replay needs the call repeated,
            # which an audit of one call cannot do.
            raise ProfileRefused(
                f"cuptiRangeProfilerStop: not all passes submitted after one call with kernel "
                f"replay (pass index {stop.passIndex}, {self.passes} passes needed)"
            )
        decode = CUpti_RangeProfiler_DecodeData_Params(pRangeProfilerObject=session.profiler_object)
        self._call("cuptiRangeProfilerDecodeData", decode)
        self.last_ranges_dropped = decode.numOfRangeDropped
        if decode.numOfRangeDropped:
            raise ProfileRefused(
                f"cuptiRangeProfilerDecodeData: {decode.numOfRangeDropped} ranges dropped (the call "
                f"launched more than {self.max_ranges} kernels)"
            )
        image, image_size = ctypes.addressof(session.counter_data), len(session.counter_data)
        info = CUpti_RangeProfiler_GetCounterDataInfo_Params(pCounterDataImage=image, counterDataImageSize=image_size)
        self._call("cuptiRangeProfilerGetCounterDataInfo", info)
        values = (ctypes.c_double * len(self.metrics))()
        ranges = []
        for index in range(info.numTotalRanges):
            # The name's string belongs to CUPTI (the sample never frees it either): a few bytes per range.
            name = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params(
                pCounterDataImage=image,
                counterDataImageSize=image_size,
                rangeIndex=index,
                rangeDelimiter=RANGE_DELIMITER,
            )
            self._call("cuptiRangeProfilerCounterDataGetRangeInfo", name)
            self._call(
                "cuptiProfilerHostEvaluateToGpuValues",
                CUpti_Profiler_Host_EvaluateToGpuValues_Params(
                    pHostObject=self._host_object,
                    pCounterDataImage=image,
                    counterDataImageSize=image_size,
                    rangeIndex=index,
                    ppMetricNames=self._metric_names,
                    numMetrics=len(self.metrics),
                    pMetricValues=values,
                ),
            )
            row = {"range": (name.rangeName or str(index).encode()).decode(errors="replace")}
            row.update({metric: float(values[k]) for k, metric in enumerate(self.metrics)})
            ranges.append(row)
        return ranges

    def _finish(self, session: _Session) -> bool:
        """Stop (if still started) and disable the range profiler. False if that failed: a profiler left
        enabled on the context would replay every later kernel, so the reader then stops for good."""
        problems = []
        if session.started and not session.stopped:
            try:
                self._call(
                    "cuptiRangeProfilerStop",
                    CUpti_RangeProfiler_Stop_Params(pRangeProfilerObject=session.profiler_object),
                )
            except CuptiCallError as exc:
                problems.append(str(exc))
            session.stopped = True
        if session.profiler_object:
            try:
                self._call(
                    "cuptiRangeProfilerDisable",
                    CUpti_RangeProfiler_Disable_Params(pRangeProfilerObject=session.profiler_object),
                )
            except CuptiCallError as exc:
                problems.append(str(exc))
            session.profiler_object = None
        session.counter_data = None
        if problems:
            self._ready = False
            self.why_not = "; ".join(([self.why_not] if self.why_not else []) + problems)
        return not problems

    # -- release ----------------------------------------------------------------------------------------------
    def close(self) -> None:
        """Release the host object and the profiler interface; the reader is unavailable afterwards."""
        self._release()
        self._ready = False

    def _release(self) -> None:
        if self._host_object:
            try:
                self._call(
                    "cuptiProfilerHostDeinitialize",
                    CUpti_Profiler_Host_Deinitialize_Params(pHostObject=self._host_object),
                )
            except CuptiCallError:
                pass  # releasing: nothing left to protect
            self._host_object = None
        if self._profiler_initialized:
            try:
                self._call("cuptiProfilerDeInitialize", CUpti_Profiler_DeInitialize_Params())
            except CuptiCallError:
                pass
            self._profiler_initialized = False
        self._config_image = self._availability_image = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    # -- ctypes plumbing --------------------------------------------------------------------------------------
    def _call(self, name: str, params: ctypes.Structure) -> None:
        """Call a CUPTI function taking one params struct; raise CuptiCallError naming it on failure."""
        function = getattr(self._lib, name)
        if name not in self._declared:
            function.argtypes = (ctypes.POINTER(type(params)),)
            function.restype = ctypes.c_int
            self._declared.add(name)
        code = function(ctypes.byref(params))
        if code != CUPTI_SUCCESS:
            raise CuptiCallError(name, code, self._result_string(code))

    def _result_string(self, code: int) -> str | None:
        text = ctypes.c_char_p(None)
        try:
            if self._lib.cuptiGetResultString(ctypes.c_int(code), ctypes.byref(text)) == CUPTI_SUCCESS and text.value:
                return text.value.decode(errors="replace")
        except (AttributeError, OSError):
            pass
        return None

    def _cuda_call(self, name: str, *args) -> None:
        code = getattr(self._cuda, name)(*args)
        if code != CUDA_SUCCESS:
            text = ctypes.c_char_p(None)
            try:
                self._cuda.cuGetErrorName(ctypes.c_int(code), ctypes.byref(text))
            except (AttributeError, OSError):
                pass
            raise CuptiCallError(name, code, text.value.decode() if text.value else None, api="CUDA")

    def _current_context(self) -> int | None:
        context = ctypes.c_void_p(None)
        self._cuda_call("cuCtxGetCurrent", ctypes.byref(context))
        return context.value


def _reason(exc: BaseException) -> str:
    """One line: the CUPTI call and code for CUPTI errors, else the exception's type and message."""
    if isinstance(exc, (CuptiCallError, ProfileRefused)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}".splitlines()[0]
