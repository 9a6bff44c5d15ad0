"""How much of a memory-bound call's time is the write-back of the timer's own L2 flush?

    python problems/w4a16_gemm/lab/flush_probe.py    (on the GPU; writes $OUT/flush_probe.json)

Times (CUDA events, median of 60) the house W4A16 at decode_m1 and decode_m16, and a plain read of the
packed weights (a float sum over their bytes), after four kinds of flush: 'write' (fill a 2 x L2 buffer:
the scorer's flush until session 5, which leaves the L2 full of dirty lines), 'write_read' (the same fill,
then a sum over the buffer: the scorer's flush now), 'read' (the sum alone), 'none' (no flush).
It keeps its own timing loop on purpose: it varies the flush, which scoring.bench (the scorer's timer) fixes.
"""
import json
import os
import statistics
import sys
from pathlib import Path

import torch

PROBLEM = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROBLEM.parents[1]))
from scoring.problem import import_file, load_problem  # noqa: E402

problem = load_problem(PROBLEM)
house = import_file(PROBLEM / "solutions" / "house.py", "w4_house_probe")
dev = torch.device("cuda")
l2 = torch.cuda.get_device_properties(dev).L2_cache_size
buf = torch.zeros(2 * l2 // 4, dtype=torch.float32, device=dev)

fill_values = [1.0]


def flush(kind):
    if kind in ("write", "write_read"):
        fill_values[0] = 1.0 - fill_values[0]  # a different value each time, so the write cannot be elided
        buf.fill_(fill_values[0])
    if kind in ("read", "write_read"):
        buf.sum()  # reads 2 x L2: clean lines left
    torch.cuda._sleep(200_000)


def time_it(fn, kind, reps=60):
    ts = []
    for _ in range(reps):
        flush(kind)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e3)
    return statistics.median(ts)

rows = []
for shape in problem.spec.gpu_shapes.visible[:2]:
    p = dict(shape.params)
    gen = torch.Generator(device=dev).manual_seed(1)
    w = problem.module.make_weights(p, gen, dev)
    x = problem.module.make_inputs(p, w, gen, dev)["x"]
    st = house.prepare(**w)
    words = st["words"]
    nbytes = problem.bytes_moved(p)
    for name, fn in (("house", lambda: house.run(st, x)), ("sum_words", lambda: words.view(torch.float32).sum())):
        for kind in ("write", "write_read", "read", "none"):
            us = time_it(fn, kind)
            moved = nbytes if name == "house" else words.numel() * 4
            rows.append({"shape": shape.name, "fn": name, "flush": kind, "us": us, "GBps": moved / us / 1e3})
            print(f"{shape.name:22s} {name:10s} flush={kind:5s} {us:7.1f} us {moved / us / 1e3:6.0f} GB/s", flush=True)
Path(os.environ["OUT"], "flush_probe.json").write_text(json.dumps(
    {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "l2_bytes": l2,
     "command": "python problems/w4a16_gemm/lab/flush_probe.py", "rows": rows}, indent=1))
