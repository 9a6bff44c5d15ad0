"""The judge's hold on every GPU call: its gate, its L2 flush, its fresh inputs, and its own clock.

For each call the judge queues, on its own stream: a gate kernel (one block spinning until the judge's
host writes the call's number, or a timeout passes), the refill of the shared input buffers, the reset of
persisting L2 lines and the L2 flush (a write of twice the L2, read back), a globaltimer stamp t0, and the
GO event. The worker's stream waits on GO. Once the worker says the call is queued, the judge queues a wait
on the worker's DONE event, a second stamp t1 and its snapshot of the output, then opens the gate.

So the inputs exist, and the L2 is flushed, only after the worker's whole call is queued: work the worker
starts early on another stream sees the previous call's values and an L2 about to be flushed. And t1 - t0,
the judge's span, contains the worker's call: measured on an H100 (scripts/probe_judge_ipc.py), it is the
worker's event time plus ~297 us of context switching, steady to a few microseconds. The gap (span minus
the time the worker reports) is calibrated on trusted calls before the solution is imported; a shape whose
reported times leave a larger gap was reported short (scoring/judge/cross_check.py).
"""

from __future__ import annotations

import base64
import ctypes

import torch
import triton
import triton.language as tl

from scoring.launch_gate import _hold_until, _now_ns
from scoring.timing import _loaded_cudart

GATE_TIMEOUT_US = 1000.0  # a call that synchronises inside waits this long, then runs as before


@triton.jit
def _stamp(ptr, slot):
    tl.store(ptr + slot, _now_ns())


class JudgeClock:
    def __init__(self, device: torch.device, l2_bytes: int):
        self.device = device
        self.flush_bytes = 2 * l2_bytes
        self._flush = torch.zeros(self.flush_bytes // 4, dtype=torch.float32, device=device)
        self._fill_value = 0.0
        self._host_counter = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        self._host_value = ctypes.c_int32.from_address(self._host_counter.data_ptr())
        self._device_counter = torch.zeros(1, dtype=torch.int32, device=device)
        self._stamps = torch.zeros(2, dtype=torch.int64, device=device)
        self._number = 0
        self._go = torch.cuda.Event(interprocess=True, enable_timing=False)
        self._go.record()
        self._done: torch.cuda.Event | None = None
        cudart = _loaded_cudart()
        self._reset_persisting = getattr(cudart, "cudaCtxResetPersistingL2Cache", None)
        self.hold(lambda: None)  # compiles the gate and the stamp now
        self.release()
        torch.cuda.synchronize(device)

    def go_handle(self) -> str:
        return base64.b64encode(self._go.ipc_handle()).decode()

    def adopt_done(self, handle: str) -> None:
        self._done = torch.cuda.Event.from_ipc_handle(self.device, base64.b64decode(handle))

    def hold(self, refill) -> None:
        """Queue the gate, `refill()` (the call's inputs), the flush, t0 and GO."""
        self._number += 1
        _hold_until[(1,)](self._host_counter, self._device_counter, self._number,
                          timeout_ns=int(GATE_TIMEOUT_US * 1e3), num_warps=1)
        refill()
        if self._reset_persisting is not None:
            self._reset_persisting()
        self._fill_value = 1.0 - self._fill_value  # a different value each time: the write is not elided
        self._flush.fill_(self._fill_value)
        self._flush.sum()  # read back: the call finds clean lines, not the flush's write-back
        _stamp[(1,)](self._stamps, 0)
        self._go.record()

    def after_done(self) -> None:
        """Queue the wait on the worker's DONE and the stamp t1 (call after the worker said "queued")."""
        torch.cuda.current_stream(self.device).wait_event(self._done)
        _stamp[(1,)](self._stamps, 1)

    def release(self) -> None:
        self._host_value.value = self._number

    def span_ms(self) -> float:
        """t1 - t0 of the last call (synchronises the judge's stream)."""
        t0, t1 = self._stamps.tolist()
        return (t1 - t0) / 1e6

    def describe(self) -> dict:
        return {"judge_gate": "one block on the judge's stream until the worker's call is queued",
                "judge_gate_timeout_us": GATE_TIMEOUT_US, "l2_flush_bytes": self.flush_bytes,
                "l2_flush": "the judge's: write, then read (clean lines), after the worker's call is queued",
                "persisting_l2_reset": "cudaCtxResetPersistingL2Cache in the judge's and the worker's contexts"}
