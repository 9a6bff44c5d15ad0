"""Probe flash-linear-attention's chunk_kda on the GPU: agreement with the recurrent reference (sign and
cumsum conventions) and its time on the candidate shapes. A development aid, not a score."""

import sys
import time
from pathlib import Path

import torch
import triton

sys.path.insert(0, str(Path(__file__).resolve().parent))
import problem as P  # noqa: E402
from fla.ops.kda import chunk_kda  # noqa: E402

dev = torch.device("cuda")
gen = torch.Generator(device=dev).manual_seed(0)
for shape in (dict(B=1, T=300, H=2, K=128, V=128), dict(B=2, T=1000, H=4, K=128, V=128)):
    x = P.make_inputs(shape, {}, gen, dev)
    ref, ref_state = P.recurrent_kda(x["q"], x["k"], x["v"], x["g"], x["beta"], x["scale"])
    o, state = chunk_kda(x["q"], x["k"], x["v"], x["g"], x["beta"].float(), scale=x["scale"], output_final_state=True)
    err = ((o.double() - ref).norm() / ref.norm()).item()
    serr = ((state.double() - ref_state).norm() / ref_state.norm()).item()
    print(f"fla vs recurrent {shape}: o normwise {err:.2e}, state normwise {serr:.2e}, o std {ref.std().item():.3f}",
          flush=True)
for shape in (dict(B=2, T=16384, H=32, K=128, V=128), dict(B=8, T=4096, H=32, K=128, V=128),
              dict(B=1, T=8192, H=16, K=128, V=128), dict(B=1, T=32768, H=16, K=128, V=128),
              dict(B=2, T=10000, H=32, K=128, V=128)):
    x = P.make_inputs(shape, {}, gen, dev)
    beta = x["beta"]
    fn = lambda: chunk_kda(x["q"], x["k"], x["v"], x["g"], beta, scale=x["scale"])  # noqa: E731
    fn()
    ms = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")
    f = P.flops(shape)
    print(f"fla chunk_kda {shape}: {ms:.3f} ms, {f / ms / 1e9:.1f} TFLOPS (formula), {f / ms / 1e9 / 989.4:.4f} of "
          f"bf16 peak", flush=True)
t = time.time()
shape = dict(B=1, T=32768, H=16, K=128, V=128)
x = P.make_inputs(shape, {}, gen, dev)
P.reference({}, x)
torch.cuda.synchronize()
print(f"recurrent reference at {shape}: {time.time() - t:.1f} s", flush=True)
