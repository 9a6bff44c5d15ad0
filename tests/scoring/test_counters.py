"""The in-process counter reader (scoring/counters.py) on the CPU: its struct layouts against the CUPTI 13.0
headers, its refusal without libcupti, and its call sequence and failure handling against a fake CUPTI."""

import ctypes

import pytest

from scoring import counters, kernel_record
from scoring.audit import EXTRA_METRICS, PRECISION_METRICS
from scoring.counters import AUDIT_METRICS, CounterReader, struct_size

# <Name>_STRUCT_SIZE on x86-64, as g++ computes it from the CUPTI 13.0 headers (CUPTI_API_VERSION 130001):
# offsetof(last field) + sizeof(last field).
HEADER_STRUCT_SIZES = {
    "CUpti_Profiler_Initialize_Params": 16,
    "CUpti_Profiler_DeInitialize_Params": 16,
    "CUpti_Device_GetChipName_Params": 32,
    "CUpti_Profiler_GetCounterAvailability_Params": 40,
    "CUpti_Profiler_DeviceSupported_Params": 52,
    "CUpti_Profiler_Host_Initialize_Params": 48,
    "CUpti_Profiler_Host_Deinitialize_Params": 24,
    "CUpti_Profiler_Host_ConfigAddMetrics_Params": 40,
    "CUpti_Profiler_Host_GetConfigImageSize_Params": 32,
    "CUpti_Profiler_Host_GetConfigImage_Params": 40,
    "CUpti_Profiler_Host_GetNumOfPasses_Params": 40,
    "CUpti_Profiler_Host_EvaluateToGpuValues_Params": 72,
    "CUpti_RangeProfiler_Enable_Params": 32,
    "CUpti_RangeProfiler_Disable_Params": 24,
    "CUpti_RangeProfiler_Start_Params": 24,
    "CUpti_RangeProfiler_Stop_Params": 41,
    "CUpti_RangeProfiler_SetConfig_Params": 90,
    "CUpti_RangeProfiler_DecodeData_Params": 32,
    "CUpti_RangeProfiler_GetCounterDataSize_Params": 64,
    "CUpti_RangeProfiler_CounterDataImage_Initialize_Params": 40,
    "CUpti_RangeProfiler_GetCounterDataInfo_Params": 40,
    "CUpti_RangeProfiler_CounterData_GetRangeInfo_Params": 56,
}


# -- layouts ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", counters.PARAMS_STRUCTS, ids=lambda cls: cls.__name__)
def test_struct_sizes_match_the_headers(cls):
    assert struct_size(cls) == HEADER_STRUCT_SIZES[cls.__name__]
    assert cls().structSize == HEADER_STRUCT_SIZES[cls.__name__]  # filled on construction
    assert cls().pPriv is None


def test_every_struct_of_the_module_is_checked():
    assert {cls.__name__ for cls in counters.PARAMS_STRUCTS} == set(HEADER_STRUCT_SIZES)


def test_set_config_layout_by_hand():
    # size_t structSize 0, void* pPriv 8, object 16, configSize 24, pConfig 32, counterDataImageSize 40,
    # pCounterDataImage 48, enum range 56, enum replayMode 60, size_t maxRangesPerPass 64,
    # uint16 numNestingLevels 72, uint16 minNestingLevel 74, (pad) size_t passIndex 80,
    # uint16 targetNestingLevel 88: 88 + 2 = 90 (sizeof is 96 with the tail padding CUPTI must not see).
    cls = counters.CUpti_RangeProfiler_SetConfig_Params
    offsets = {name: getattr(cls, name).offset for name, _ in cls._fields_}
    assert offsets == {
        "structSize": 0,
        "pPriv": 8,
        "pRangeProfilerObject": 16,
        "configSize": 24,
        "pConfig": 32,
        "counterDataImageSize": 40,
        "pCounterDataImage": 48,
        "range": 56,
        "replayMode": 60,
        "maxRangesPerPass": 64,
        "numNestingLevels": 72,
        "minNestingLevel": 74,
        "passIndex": 80,
        "targetNestingLevel": 88,
    }
    assert ctypes.sizeof(cls) == 96 and struct_size(cls) == 90


def test_stop_and_enable_layouts_by_hand():
    stop = counters.CUpti_RangeProfiler_Stop_Params
    assert (stop.passIndex.offset, stop.targetNestingLevel.offset, stop.isAllPassSubmitted.offset) == (24, 32, 40)
    assert struct_size(stop) == 41
    enable = counters.CUpti_RangeProfiler_Enable_Params
    assert (enable.ctx.offset, enable.pRangeProfilerObject.offset, struct_size(enable)) == (16, 24, 32)
    size = counters.CUpti_RangeProfiler_GetCounterDataSize_Params
    assert (size.maxNumRangeTreeNodes.offset, size.counterDataSize.offset) == (48, 56)


def test_audit_metrics_are_the_audits_own():
    assert AUDIT_METRICS == tuple(PRECISION_METRICS.values()) + tuple(EXTRA_METRICS)


# -- no libcupti ---------------------------------------------------------------------------------------------------
def test_without_libcupti_the_reader_is_unavailable_and_runs_the_call(monkeypatch):
    monkeypatch.setattr(kernel_record, "find_libcupti", lambda: None)
    reader = CounterReader(AUDIT_METRICS)
    assert not reader.available
    assert "libcupti" in reader.why_not and "\n" not in reader.why_not
    assert reader.profile(lambda: 42) == (42, [])
    reader.close()
    reader.close()  # twice is harmless


def test_a_libcupti_path_that_does_not_exist_is_reported(monkeypatch):
    monkeypatch.setattr(kernel_record, "find_libcupti", lambda: "/nonexistent/cu13/lib/libcupti.so.13")
    reader = CounterReader(AUDIT_METRICS)
    assert not reader.available
    assert reader.why_not.startswith("OSError") and "/nonexistent/cu13/lib/libcupti.so.13" in reader.why_not
    result, ranges = reader.profile(lambda: {"out": 1})
    assert result == {"out": 1} and ranges == []


def test_an_unavailable_reader_lets_the_calls_own_exception_through(monkeypatch):
    monkeypatch.setattr(kernel_record, "find_libcupti", lambda: None)
    reader = CounterReader(AUDIT_METRICS)
    with pytest.raises(ZeroDivisionError):
        reader.profile(lambda: 1 / 0)


# -- a fake CUPTI: the call sequence and the failure paths ------------------------------------------------------------
CONTEXT, HOST_OBJECT, PROFILER_OBJECT = 0xC0, 0x4051, 0x5E55


class FakeLibrary:
    """Stands in for libcupti and libcuda: records each call by name, fills the outputs CUPTI would, and
    returns `fail[name]` for the functions told to fail."""

    def __init__(self, log, fail=None, ranges=2, all_passes=True, dropped=0):
        self.log, self.fail = log, dict(fail or {})
        self.ranges, self.all_passes, self.dropped = ranges, all_passes, dropped
        self.set_config = None
        self.metric_names = None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)

        def function(*args):  # a plain function: the reader sets argtypes on it as on a ctypes function
            self.log.append(name)
            if name in self.fail:
                return self.fail[name]
            handler = getattr(type(self), "on_" + name, None)
            objects = [getattr(arg, "_obj", arg) for arg in args]  # byref(x)._obj is x
            if handler is not None:
                handler(self, *objects)
            return 0

        return function

    # CUDA driver
    def on_cuCtxGetCurrent(self, context):
        context.value = CONTEXT

    def on_cuGetErrorName(self, code, text):
        text.value = b"CUDA_ERROR_FAKE"

    # CUPTI
    def on_cuptiGetVersion(self, version):
        version.value = 130001

    def on_cuptiGetResultString(self, code, text):
        text.value = b"CUPTI_ERROR_FAKE_%d" % code.value

    def on_cuptiDeviceGetChipName(self, params):
        params.pChipName = b"GH100"

    def on_cuptiProfilerDeviceSupported(self, params):
        for name in ("isSupported", "architecture", "sli", "vGpu", "confidentialCompute", "cmp", "wsl"):
            setattr(params, name, 3)

    def on_cuptiProfilerGetCounterAvailability(self, params):
        assert params.ctx == CONTEXT
        params.counterAvailabilityImageSize = 8

    def on_cuptiProfilerHostInitialize(self, params):
        assert params.pChipName == b"GH100" and params.profilerType == counters.CUPTI_PROFILER_TYPE_RANGE_PROFILER
        params.pHostObject = HOST_OBJECT

    def on_cuptiProfilerHostConfigAddMetrics(self, params):
        self.metric_names = [params.ppMetricNames[k].decode() for k in range(params.numMetrics)]

    def on_cuptiProfilerHostGetConfigImageSize(self, params):
        params.configImageSize = 16

    def on_cuptiProfilerHostGetNumOfPasses(self, params):
        params.numOfPasses = 3

    def on_cuptiRangeProfilerEnable(self, params):
        assert params.ctx == CONTEXT
        params.pRangeProfilerObject = PROFILER_OBJECT

    def on_cuptiRangeProfilerGetCounterDataSize(self, params):
        params.counterDataSize = 256

    def on_cuptiRangeProfilerSetConfig(self, params):
        self.set_config = {
            name: getattr(params, name) for name, _ in params._fields_ if name not in ("pConfig", "pCounterDataImage")
        }

    def on_cuptiRangeProfilerStop(self, params):
        params.isAllPassSubmitted = int(self.all_passes)

    def on_cuptiRangeProfilerDecodeData(self, params):
        params.numOfRangeDropped = self.dropped

    def on_cuptiRangeProfilerGetCounterDataInfo(self, params):
        assert params.counterDataImageSize == 256
        params.numTotalRanges = self.ranges

    def on_cuptiRangeProfilerCounterDataGetRangeInfo(self, params):
        assert params.rangeDelimiter == b"/"
        params.rangeName = str(params.rangeIndex).encode()

    def on_cuptiProfilerHostEvaluateToGpuValues(self, params):
        assert params.pHostObject == HOST_OBJECT
        for k in range(params.numMetrics):
            params.pMetricValues[k] = 1000.0 * params.rangeIndex + k


def fake_reader(monkeypatch, **behaviour):
    log = []
    library = FakeLibrary(log, **behaviour)
    monkeypatch.setattr(kernel_record, "find_libcupti", lambda: "/fake/cu13/lib/libcupti.so.13")
    monkeypatch.setattr(counters, "_load_library", lambda path, global_symbols=False: library)
    return CounterReader(AUDIT_METRICS), library, log


def test_building_the_reader_schedules_the_metrics(monkeypatch):
    reader, library, log = fake_reader(monkeypatch)
    assert reader.available and reader.why_not is None
    assert (reader.chip, reader.passes, reader.cupti_version) == ("GH100", 3, 130001)
    assert library.metric_names == list(AUDIT_METRICS)
    assert (
        log.index("cuInit")
        < log.index("cuptiProfilerInitialize")
        < log.index("cuptiDeviceGetChipName")
        < log.index("cuptiProfilerHostInitialize")
        < log.index("cuptiProfilerHostConfigAddMetrics")
        < log.index("cuptiProfilerHostGetConfigImage")
    )
    assert reader.device_support == "supported"
    assert reader.counter_availability.startswith("image of the current context")
    reader.close()
    assert log[-2:] == ["cuptiProfilerHostDeinitialize", "cuptiProfilerDeInitialize"] and not reader.available


def test_one_profiled_call_enables_starts_runs_stops_decodes_evaluates_and_disables(monkeypatch):
    reader, library, log = fake_reader(monkeypatch)
    del log[:]
    result, ranges = reader.profile(lambda: log.append("fn") or "out")
    assert result == "out" and reader.why_not is None
    assert [r["range"] for r in ranges] == ["0", "1"]
    assert ranges[1][AUDIT_METRICS[0]] == 1000.0 and ranges[1][AUDIT_METRICS[-1]] == 1000.0 + len(AUDIT_METRICS) - 1
    cupti = [name for name in log if name.startswith("cupti") and name != "cuptiGetResultString" or name == "fn"]
    assert cupti == [
        "cuptiRangeProfilerEnable",
        "cuptiRangeProfilerGetCounterDataSize",
        "cuptiRangeProfilerCounterDataImageInitialize",
        "cuptiRangeProfilerSetConfig",
        "cuptiRangeProfilerStart",
        "fn",
        "cuptiRangeProfilerStop",
        "cuptiRangeProfilerDecodeData",
        "cuptiRangeProfilerGetCounterDataInfo",
        "cuptiRangeProfilerCounterDataGetRangeInfo",
        "cuptiProfilerHostEvaluateToGpuValues",
        "cuptiRangeProfilerCounterDataGetRangeInfo",
        "cuptiProfilerHostEvaluateToGpuValues",
        "cuptiRangeProfilerDisable",
    ]
    assert log[log.index("fn") + 1] == "cuCtxSynchronize"  # the call's kernels finish before Stop
    config = library.set_config
    assert (config["range"], config["replayMode"]) == (counters.CUPTI_AUTO_RANGE, counters.CUPTI_KERNEL_REPLAY)
    assert (config["maxRangesPerPass"], config["numNestingLevels"], config["minNestingLevel"]) == (64, 1, 1)
    assert (config["passIndex"], config["targetNestingLevel"], config["structSize"]) == (0, 1, 90)
    assert config["configSize"] == 16 and config["counterDataImageSize"] == 256
    # The reader is reusable: a second call enables and disables again.
    assert reader.profile(lambda: 7)[0] == 7 and log.count("cuptiRangeProfilerDisable") == 2


def test_a_failure_after_the_call_returns_its_result_and_no_ranges(monkeypatch):
    reader, _, log = fake_reader(monkeypatch, fail={"cuptiRangeProfilerDecodeData": 999})
    result, ranges = reader.profile(lambda: "out")
    assert (result, ranges) == ("out", [])
    assert "cuptiRangeProfilerDecodeData" in reader.why_not and "999" in reader.why_not
    assert "CUPTI_ERROR_FAKE_999" in reader.why_not
    assert log[-1] == "cuptiRangeProfilerDisable" and reader.available  # disabled cleanly: usable again


def test_a_failure_before_the_call_runs_it_unprofiled(monkeypatch):
    reader, _, log = fake_reader(monkeypatch, fail={"cuptiRangeProfilerEnable": 35})
    calls = []
    result, ranges = reader.profile(lambda: calls.append(1) or "out")
    assert (result, ranges, calls) == ("out", [], [1])
    assert reader.why_not.startswith("before the call: cuptiRangeProfilerEnable returned CUPTI error 35")
    assert "cuptiRangeProfilerStart" not in log and "cuptiRangeProfilerDisable" not in log


def test_missing_passes_or_dropped_ranges_refuse_the_profile(monkeypatch):
    reader, _, _ = fake_reader(monkeypatch, all_passes=False)
    assert reader.profile(lambda: 1) == (1, []) and "not all passes submitted" in reader.why_not
    reader, _, _ = fake_reader(monkeypatch, dropped=3)
    assert reader.profile(lambda: 1) == (1, []) and "3 ranges dropped" in reader.why_not


def test_a_failing_disable_stops_the_reader(monkeypatch):
    reader, _, _ = fake_reader(monkeypatch, fail={"cuptiRangeProfilerDisable": 999})
    assert reader.profile(lambda: 1) == (1, [])
    assert "cuptiRangeProfilerDisable" in reader.why_not and not reader.available


def test_the_calls_own_exception_propagates_after_the_profiler_is_disabled(monkeypatch):
    reader, _, log = fake_reader(monkeypatch)
    with pytest.raises(ZeroDivisionError):
        reader.profile(lambda: 1 / 0)
    assert log[-2:] == ["cuptiRangeProfilerStop", "cuptiRangeProfilerDisable"]


def test_a_failing_build_step_is_named_and_releases_the_host_object(monkeypatch):
    reader, _, log = fake_reader(monkeypatch, fail={"cuptiProfilerHostConfigAddMetrics": 17})
    assert not reader.available
    assert reader.why_not == ("cuptiProfilerHostConfigAddMetrics returned CUPTI error 17 (CUPTI_ERROR_FAKE_17)")
    assert "cuptiProfilerHostDeinitialize" in log and "cuptiProfilerDeInitialize" in log
    assert reader.profile(lambda: 5) == (5, [])


def test_no_cuda_context_at_profile_time_runs_the_call_unprofiled(monkeypatch):
    reader, _, log = fake_reader(monkeypatch)
    monkeypatch.setattr(FakeLibrary, "on_cuCtxGetCurrent", lambda self, context: None)
    assert reader.profile(lambda: 5) == (5, [])
    assert "no current CUDA context" in reader.why_not and "cuptiRangeProfilerEnable" not in log


def test_a_failed_stop_is_not_retried_and_the_profiler_is_still_disabled(monkeypatch):
    reader, _, log = fake_reader(monkeypatch, fail={"cuptiRangeProfilerStop": 7})
    assert reader.profile(lambda: 1) == (1, [])
    assert reader.why_not.startswith("after the call: cuptiRangeProfilerStop returned CUPTI error 7")
    assert log.count("cuptiRangeProfilerStop") == 1 and log[-1] == "cuptiRangeProfilerDisable" and reader.available
