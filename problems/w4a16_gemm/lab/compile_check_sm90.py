"""Compile every variant kernel config and the house's dispatch configs for sm_90 on a machine without a
GPU (ptxas ships with Triton).

    python problems/w4a16_gemm/lab/compile_check_sm90.py [--dump DIR]

Catches what only compiled mode rejects (the interpreter accepts more), and with --dump writes each
kernel's TTGIR and PTX so one can check, e.g., whether the dequantised A operand reaches wgmma from
registers (grep warp_group_dot / local_alloc in the TTGIR).
"""

import argparse
import sys
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

LAB = Path(__file__).resolve().parent
sys.path.insert(0, str(LAB))
import bench_variants  # noqa: E402
import variants  # noqa: E402

POINTERS = {"x_ptr": "*bf16", "words_ptr": "*i32", "scales_ptr": "*bf16", "zeros_ptr": "*bf16",
            "out_ptr": "*bf16", "partial_ptr": "*fp32", "counter_ptr": "*i32", "M": "i32", "N": "i32", "K": "i32"}


def compile_one(kernel, constexprs: dict, num_warps: int, num_stages: int = 3):
    names = kernel.arg_names
    signature = {name: ("constexpr" if name in constexprs else POINTERS[name]) for name in names}
    source = ASTSource(kernel, signature, constexprs={(names.index(k),): v for k, v in constexprs.items()})
    return triton.compile(source, target=GPUTarget("cuda", 90, 32),
                          options=dict(num_warps=num_warps, num_stages=num_stages))


def kernel_and_constexprs(variant, cfg):
    split = cfg.get("SPLIT_K") or 2
    if variant == "gemv_lean":
        return variants._gemv_lean_kernel, dict(BLOCK_N=cfg["BLOCK_N"], SPLIT_K=split, NUM_STAGES=cfg["num_stages"])
    if variant == "swap16":
        return variants.house._swap_kernel, dict(BLOCK_N=cfg["BLOCK_N"], BLOCK_T=cfg["BLOCK_T"], SPLIT_K=split,
                                                 NUM_STAGES=cfg["num_stages"])
    return variants._swapped_kernel, dict(BLOCK_N=cfg["BLOCK_N"], BLOCK_T=cfg["BLOCK_T"], SPLIT_K=split,
                                          WHOLE_GROUP_DOT=variant == "swap128", NUM_STAGES=cfg["num_stages"])


def house_configs():
    """The house's DISPATCH rows as (label, kernel, constexprs, num_warps, num_stages), split 1 and 2."""
    house = variants.house
    for max_m, cfg, _ in house.DISPATCH:
        for split in (1, 2):
            if cfg["KERNEL"] == "gemv":
                kernel, constexprs = house._gemv_kernel, dict(BLOCK_N=cfg["BLOCK_N"], SPLIT_K=split)
            elif cfg["KERNEL"] == "mma":
                kernel, constexprs = house._mma_kernel, dict(BLOCK_M=cfg["BLOCK_M"], BLOCK_N=cfg["BLOCK_N"],
                                                            SPLIT_K=split)
            else:
                kernel, constexprs = house._swap_kernel, dict(BLOCK_N=cfg["BLOCK_N"], BLOCK_T=cfg["BLOCK_T"],
                                                             SPLIT_K=split, NUM_STAGES=cfg["num_stages"])
            yield f"house M<={max_m} {cfg['KERNEL']}", kernel, constexprs, cfg["num_warps"], cfg["num_stages"]


def jobs():
    """(name, kernel, constexprs, num_warps, num_stages): every bench candidate, then the house's rows."""
    for M in sorted({M for M, _ in bench_variants.CANDIDATES_BY_M}):
        for variant, cfg in bench_variants.candidates(M):
            if variant != "house":  # the house's configs come from its DISPATCH table below
                # run_variant launches with Triton's default num_stages (3); the loop's depth is NUM_STAGES
                yield (variant, *kernel_and_constexprs(variant, cfg), cfg["num_warps"], 3)
    yield from house_configs()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", default="")
    args = parser.parse_args()
    seen, failures = set(), 0
    for name, kernel, constexprs, num_warps, num_stages in jobs():
        key = (kernel.fn.__qualname__, tuple(sorted(constexprs.items())), num_warps, num_stages)
        if key in seen:
            continue
        seen.add(key)
        label = f"{name} {constexprs} warps={num_warps} stages={num_stages}"
        try:
            compiled = compile_one(kernel, constexprs, num_warps, num_stages)
        except Exception as exc:  # report every failing config, not just the first
            failures += 1
            print("FAIL", label, f"{type(exc).__name__}: {str(exc)[:2000]}", flush=True)
            continue
        ttgir = compiled.asm["ttgir"]
        print(f"ok   {label} shared={compiled.metadata.shared} "
              f"wgmma={ttgir.count('warp_group_dot ')} local_alloc={ttgir.count('local_alloc')}", flush=True)
        if args.dump:
            stem = Path(args.dump) / "_".join(str(v) for v in [name.replace(" ", "_"), *constexprs.values(), num_warps])
            stem.with_suffix(".ttgir").write_text(ttgir)
            stem.with_suffix(".ptx").write_text(compiled.asm["ptx"])
    print(f"{len(seen)} kernels compiled, {failures} failures")
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
