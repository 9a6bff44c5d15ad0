"""The launch gate: the GPU held until the host has queued the whole call, or a timeout passes.

Before each call the timer queues, after its L2 flush, a kernel that fills every thread slot of every SM
and spins until a counter in pinned host memory reaches the call's number. The host then records the
start event, runs the solution (which queues its kernels behind the gate), records the end event and
only then writes the counter: the GPU runs start event, kernels and end event back to back, so the events
time the call's device work and none of the host's launch time, however slow the host was that call.
A fixed pause (the timer's earlier launch pad) hid only the host time before the first kernel, and only
up to its length: measured on an H100, a Triton launch from Python took 70-300 us and varied by 30% from
one process to the next, which moved 20-30 us kernels by up to 30% between otherwise identical runs.

Because the gate occupies every SM, work a solution queues on another stream cannot run before the start
event either (X10: with a one-thread pause it could, for as long as the host kept the pause going).

The gate opens by itself after `timeout_us` (the kernel reads the GPU's global timer), so a solution
that synchronises inside its call (`.item()`, `torch.cuda.synchronize()`) waits that long and is then
timed as before: what it queues after the synchronise is charged with the host gaps in front of it.
Host time is not charged up to the timeout; work that needs the inputs on the host cannot start before
the gate opens, since reading them synchronises.
"""

from __future__ import annotations

import ctypes

import torch
import triton
import triton.language as tl

THREADS_PER_BLOCK = 1024  # num_warps=32


@triton.jit
def _now_ns():
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)


@triton.jit
def _pause():
    """200 ns between reads of the counter, so that every thread of the GPU spinning on it stays cheap."""
    tl.inline_asm_elementwise("nanosleep.u32 200; mov.u32 $0, 0;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit(do_not_specialize=["call_number"])
def _hold_until(host_counter_ptr, device_counter_ptr, call_number, timeout_ns: tl.constexpr):
    """Block 0 watches the host's counter and passes it on in device memory, where the others watch it."""
    start = _now_ns()
    now = start
    if tl.program_id(0) == 0:
        seen = tl.load(host_counter_ptr, volatile=True)
        while (seen < call_number) & (now - start < timeout_ns):
            _pause()
            seen = tl.load(host_counter_ptr, volatile=True)
            now = _now_ns()
        tl.store(device_counter_ptr, call_number)
    else:
        seen = tl.load(device_counter_ptr, volatile=True)
        while (seen < call_number) & (now - start < timeout_ns):
            _pause()
            seen = tl.load(device_counter_ptr, volatile=True)
            now = _now_ns()


class LaunchGate:
    """`hold()` queues the gate on the current stream; `open()` lets the GPU run on."""

    def __init__(self, device: torch.device, timeout_us: float):
        self.timeout_us = timeout_us
        properties = torch.cuda.get_device_properties(device)
        threads_per_sm = getattr(properties, "max_threads_per_multi_processor", 2048)
        self.blocks = properties.multi_processor_count * max(1, threads_per_sm // THREADS_PER_BLOCK)
        # Pinned host memory: block 0 reads it over the bus (unified addressing maps it for the device).
        self._host_counter = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        self._host_value = ctypes.c_int32.from_address(self._host_counter.data_ptr())
        self._device_counter = torch.zeros(1, dtype=torch.int32, device=device)
        self._call_number = 0
        self._timeout_ns = int(timeout_us * 1e3)
        compiled = self.hold()  # compiles the kernel now, before any solution code runs
        self.open()
        torch.cuda.synchronize(device)
        # Every thread slot taken needs the whole register file shared out: at most 32 per thread at 2048
        # threads per SM. More, and fewer gate blocks fit on an SM, leaving room for another stream's work.
        self.registers_per_thread = getattr(compiled, "n_regs", None)
        register_file = getattr(properties, "regs_per_multiprocessor", None)
        self.fills_every_sm = None
        if self.registers_per_thread is not None and register_file is not None:
            self.fills_every_sm = self.registers_per_thread * threads_per_sm <= register_file

    def hold(self):
        self._call_number += 1
        return _hold_until[(self.blocks,)](
            self._host_counter,
            self._device_counter,
            self._call_number,
            timeout_ns=self._timeout_ns,
            num_warps=THREADS_PER_BLOCK // 32,
        )

    def open(self) -> None:
        self._host_value.value = self._call_number

    def describe(self) -> dict:
        return {
            "launch_gate": "the GPU held until the call is queued (scoring/launch_gate.py)",
            "launch_gate_timeout_us": self.timeout_us,
            "launch_gate_blocks": self.blocks,
            "launch_gate_threads_per_block": THREADS_PER_BLOCK,
            "launch_gate_registers_per_thread": self.registers_per_thread,
            "launch_gate_fills_every_sm": self.fills_every_sm,
        }
