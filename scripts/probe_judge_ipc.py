"""Probe for the judge/worker split (issue 32), run on a lent GPU before the design is built on it.

Measures, between a judge process and a worker process that share tensors by CUDA IPC:
  1. whether CUDA IPC (tensors and interprocess events) works, also with the worker in its own PID, mount
     and network namespaces (`unshare`) and under bubblewrap where one is installed;
  2. the judge's own GPU span of a call: a gate kernel on the judge's stream, then a globaltimer probe (t0)
     and the GO event; the worker waits on GO, times the call with its own events and records DONE; the
     judge waits on DONE and probes again (t1). Span minus the worker's event time is the cost of the two
     context switches, per call size (null, ~10 us .. ~5 ms);
  3. opening the worker's output storage in the judge (cudaIpcOpenMemHandle), first and cached;
  4. a forging worker (reports 0.8x its event time): the gap's growth.

    python scripts/probe_judge_ipc.py OUT_DIR        (a GPU machine; writes OUT_DIR/probe_judge_ipc.json)
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def send(fd, obj) -> None:
    data = json.dumps(obj).encode() + b"\n"
    while data:
        data = data[os.write(fd, data) :]


class Lines:
    def __init__(self, fd):
        self.fd, self.buf = fd, bytearray()

    def get(self, timeout_s: float = 60.0):
        import select

        deadline = time.monotonic() + timeout_s
        while b"\n" not in self.buf:
            if not select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise TimeoutError("no message within the deadline")
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise EOFError("peer closed")
            self.buf += chunk
        end = self.buf.index(b"\n")
        line = bytes(self.buf[:end])
        del self.buf[: end + 1]
        return json.loads(line)


# ---------------------------------------------------------------------------------------------- worker
def worker_main(read_fd: int, write_fd: int, forge: float) -> None:
    import torch

    inbox, outbox = Lines(read_fd), write_fd
    setup = inbox.get()
    import torch.multiprocessing  # noqa: F401 -- registers the CUDA IPC reductions

    tensors = pickle.loads(base64.b64decode(setup["tensors"]))
    go = torch.cuda.Event.from_ipc_handle(0, base64.b64decode(setup["go"]))
    done = torch.cuda.Event(interprocess=True, enable_timing=False)
    send(
        outbox,
        {
            "done_handle": base64.b64encode(done.ipc_handle()).decode(),
            "pid": os.getpid(),
            "pid_ns": os.readlink("/proc/self/ns/pid"),
        },
    )
    a, b = tensors["a"], tensors["b"]
    stream = torch.cuda.current_stream()
    while True:
        msg = inbox.get()
        if msg["op"] == "exit":
            return
        n = msg["n"]
        stream.wait_event(go)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t_host = time.perf_counter()
        start.record()
        if n == 0:
            out = a[:1, :1].clone()
        else:
            out = a[:n, :n] @ b[:n, :n]
        end.record()
        done.record()
        storage = out.untyped_storage()
        shared = storage._share_cuda_()
        desc = {
            "shared": [base64.b64encode(x).decode() if isinstance(x, bytes) else x for x in shared],
            "shape": list(out.shape),
            "stride": list(out.stride()),
            "offset": out.storage_offset(),
        }
        send(outbox, {"queued": True, "desc": desc})
        end.synchronize()
        launch_ms = (time.perf_counter() - t_host) * 1e3
        send(outbox, {"device_ms": start.elapsed_time(end) * forge, "launch_ms": launch_ms})
        keep = out  # noqa: F841 -- alive until the next call, while the judge reads it
        inbox.get()  # "checked"


# ---------------------------------------------------------------------------------------------- judge
def judge_run(worker_prefix: list[str], label: str, sizes: list[int], calls: int, forge: float = 1.0) -> dict:
    import torch
    import triton
    import triton.language as tl

    from scoring.launch_gate import _hold_until, _now_ns

    @triton.jit
    def probe(ptr, slot):
        tl.store(ptr + slot, _now_ns())

    dev = torch.device("cuda:0")
    a = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    host_flag = torch.zeros(1, dtype=torch.int32, pin_memory=True)
    import ctypes

    flag = ctypes.c_int32.from_address(host_flag.data_ptr())
    dev_flag = torch.zeros(1, dtype=torch.int32, device=dev)
    stamps = torch.zeros(2, dtype=torch.int64, device=dev)
    flush = torch.zeros(2 * 50 * 2**20 // 4, dtype=torch.float32, device=dev)
    go = torch.cuda.Event(interprocess=True, enable_timing=False)
    go.record()
    torch.cuda.synchronize()
    from torch.multiprocessing.reductions import reduce_tensor  # noqa: F401 -- registers reductions
    import torch.multiprocessing  # noqa: F401

    j_r, w_w = os.pipe()
    w_r, j_w = os.pipe()
    cmd = worker_prefix + [sys.executable, __file__, "--worker", str(w_r), str(w_w), str(forge)]
    proc = subprocess.Popen(cmd, pass_fds=(w_r, w_w), cwd=REPO)
    os.close(w_r)
    os.close(w_w)
    inbox = Lines(j_r)
    result = {"label": label, "cmd_prefix": worker_prefix, "forge": forge}
    try:
        t = time.perf_counter()
        from multiprocessing.reduction import ForkingPickler

        send(
            j_w,
            {
                "tensors": base64.b64encode(bytes(ForkingPickler.dumps({"a": a, "b": b}))).decode(),
                "go": base64.b64encode(go.ipc_handle()).decode(),
            },
        )
        hello = inbox.get()
        result["setup_ms"] = (time.perf_counter() - t) * 1e3
        print(f"{label}: worker ready in {result['setup_ms']:.0f} ms", flush=True)
        result["worker_pid_ns"], result["judge_pid_ns"] = hello["pid_ns"], os.readlink("/proc/self/ns/pid")
        done = torch.cuda.Event.from_ipc_handle(0, base64.b64decode(hello["done_handle"]))
        opened: dict = {}
        per_size = {}
        number = 0
        for n in sizes:
            rows = []
            for i in range(calls + 3):
                number += 1
                _hold_until[(1,)](host_flag, dev_flag, number, timeout_ns=2_000_000, num_warps=1)
                flush.fill_(float(number % 2))
                flush.sum()
                probe[(1,)](stamps, 0)
                go.record()
                h0 = time.perf_counter()
                send(j_w, {"op": "call", "n": n})
                queued = inbox.get()
                desc = queued["desc"]
                key = (desc["shared"][1], desc["shared"][2], desc["shared"][3])
                t_open = time.perf_counter()
                if key not in opened:
                    s = desc["shared"]
                    args = [base64.b64decode(x) if k in (1, 4, 6) and x is not None else x for k, x in enumerate(s)]
                    opened[key] = torch.UntypedStorage._new_shared_cuda(*args)
                open_ms = (time.perf_counter() - t_open) * 1e3
                torch.cuda.current_stream().wait_event(done)
                probe[(1,)](stamps, 1)
                out = torch.empty(0, dtype=torch.bfloat16, device=dev).set_(
                    opened[key], desc["offset"], desc["shape"], desc["stride"]
                )
                snap = out.clone()
                j_end = torch.cuda.Event()
                j_end.record()
                flag.value = number
                j_end.synchronize()
                h1 = time.perf_counter()
                report = inbox.get()
                h2 = time.perf_counter()
                span_ms = float(stamps[1] - stamps[0]) / 1e6
                ok = bool(torch.isfinite(snap.float()).all()) if snap.numel() else True
                send(j_w, {"op": "checked"})
                if i >= 3:
                    rows.append(
                        {
                            "event_ms": report["device_ms"],
                            "span_ms": span_ms,
                            "host_ms": (h2 - h0) * 1e3,
                            "post_done_ms": (h2 - h1) * 1e3,
                            "open_ms": open_ms,
                            "finite": ok,
                            "worker_launch_ms": report["launch_ms"],
                        }
                    )
            gaps = [r["span_ms"] - r["event_ms"] for r in rows]
            per_size[str(n)] = {
                "event_ms_median": statistics.median(r["event_ms"] for r in rows),
                "span_ms_median": statistics.median(r["span_ms"] for r in rows),
                "gap_us_median": statistics.median(gaps) * 1e3,
                "gap_us_p10": statistics.quantiles(gaps, n=10)[0] * 1e3,
                "gap_us_p90": statistics.quantiles(gaps, n=10)[-1] * 1e3,
                "gap_us_max": max(gaps) * 1e3,
                "post_done_us_median": statistics.median(r["post_done_ms"] for r in rows) * 1e3,
                "host_ms_median": statistics.median(r["host_ms"] for r in rows),
                "open_ms_first": rows[0]["open_ms"],
                "open_ms_median": statistics.median(r["open_ms"] for r in rows),
                "outputs_opened": len(opened),
                "finite": all(r["finite"] for r in rows),
            }
        result["sizes"] = per_size
        send(j_w, {"op": "exit"})
        proc.wait(timeout=30)
        result["ok"] = True
    except Exception as exc:  # noqa: BLE001 -- the probe records every failure
        result["ok"] = False
        result["error"] = f"{type(exc).__name__}: {exc}"
        print(f"{label}: {result['error']}", flush=True)
        proc.kill()
        proc.wait()
    result["worker_rc"] = proc.returncode
    return result


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    import torch

    sizes = [0, 256, 1024, 2048, 4096]
    report = {
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0),
        "bwrap": shutil.which("bwrap"),
        "unshare": shutil.which("unshare"),
        "uid": os.getuid(),
        "runs": [],
    }
    prefixes = [
        ("plain", []),
        ("unshare_pid_mount_net", ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--mount"]),
        ("unshare_pid_only", ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc"]),
        # measured: with its own IPC namespace the worker's DONE event no longer orders the judge's
        # stream (span shorter than the call): CUDA's IPC events need the host's IPC namespace
        ("unshare_pid_ipc", ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--ipc"]),
    ]
    if report["bwrap"]:
        prefixes.append(
            (
                "bwrap",
                [
                    "bwrap",
                    "--dev-bind",
                    "/",
                    "/",
                    "--unshare-pid",
                    "--unshare-net",
                    "--proc",
                    "/proc",
                    "--die-with-parent",
                ],
            )
        )
    for label, prefix in prefixes:
        report["runs"].append(judge_run(prefix, label, sizes if label == "plain" else [0, 1024, 4096], 40))
        print(json.dumps(report["runs"][-1])[:600], flush=True)
    report["runs"].append(judge_run([], "forged_0.8", [1024, 2048, 4096], 40, forge=0.8))
    (out_dir / "probe_judge_ipc.json").write_text(json.dumps(report, indent=1))
    print(
        f"{'run':24s} {'n':>5s} {'event_ms':>9s} {'span_ms':>9s} {'gap_us':>8s} {'p90':>7s} {'post_us':>8s} {'open_ms':>8s}"
    )
    for run in report["runs"]:
        if not run.get("ok"):
            print(f"{run['label']:24s} FAILED {run.get('error')}")
            continue
        for n, s in run["sizes"].items():
            print(
                f"{run['label']:24s} {n:>5s} {s['event_ms_median']:9.4f} {s['span_ms_median']:9.4f} "
                f"{s['gap_us_median']:8.1f} {s['gap_us_p90']:7.1f} {s['post_done_us_median']:8.1f} "
                f"{s['open_ms_first']:8.3f}"
            )


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker_main(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
    else:
        main()
