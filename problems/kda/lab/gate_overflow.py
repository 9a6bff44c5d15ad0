"""How far the problem's decays reach inside one 64-step chunk, against kernelbench.com's KDA inputs.

    python problems/kda/lab/gate_overflow.py

A chunked kernel that factors the decay between steps j < t as exp(G_t) * exp(-G_j) (G the cumulative
log-decay from the chunk's start) overflows once -G_j passes ln(FLT_MAX) = 88.72 (bf16 has the same range;
an exp2 form overflows at the same point): Inf, then NaN where it meets a zero or another Inf. The problem
draws g as Kimi Linear parameterises it (problem.py: make_gate); kernelbench.com's 02_kda_cutlass drew
g ~ N(-0.05, 0.1). Runs on the CPU (a draw, no kernel); output: measurements/gate_overflow.txt.
"""

import importlib.util
import math
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
FLT_MAX_LN = math.log(torch.finfo(torch.float32).max)
CHUNK = 64


def load_problem():
    spec = importlib.util.spec_from_file_location("kda_problem", HERE.parent / "problem.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def chunk_cumulative(g: torch.Tensor) -> torch.Tensor:
    """(B, T, H, K) per-step log-decays to (B, chunks, CHUNK, H, K) cumulative sums from each chunk's start."""
    B, T, H, K = g.shape
    return g[:, : T - T % CHUNK].reshape(B, T // CHUNK, CHUNK, H, K).cumsum(2)


def describe(name: str, g: torch.Tensor) -> str:
    G = chunk_cumulative(g)
    over = G < -FLT_MAX_LN
    return (f"{name}: per-step g mean {g.mean():.3f}, min {g.min():.2f}; chunk-end cumulative G median "
            f"{G[:, :, -1].median():.1f}, min {G.min():.1f}; exp(-G) overflows fp32 at {over.float().mean():.2%} of "
            f"(token, channel) entries, in {over.any(dim=2).any(dim=-1).float().mean():.1%} of (chunk, head) pairs")


def main() -> None:
    problem = load_problem()
    gen = torch.Generator().manual_seed(0)
    shape = {"B": 1, "T": 4096, "H": 32, "K": 128, "V": 128}
    lines = [f"shape {shape}, seed 0, overflow where -G > ln(FLT_MAX) = {FLT_MAX_LN:.2f}",
             describe("ours (Kimi Linear gate, problem.py make_gate)", problem.make_gate(shape, gen, "cpu")),
             describe("kernelbench.com (g ~ N(-0.05, 0.1))",
                      torch.randn((1, 4096, 8, 128), generator=gen) * 0.1 - 0.05)]
    text = "\n".join(lines) + "\n"
    (HERE / "measurements" / "gate_overflow.txt").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
