"""Compile the house's kernels (solutions/house.py, formerly lab/house_split.py) for sm_90 without a GPU, and report what ptxas made of each.

    python problems/kda/lab/compile_split_sm90.py [VARIANT ...]

The same report as compile_fast_sm90.py (whose `_compile` it reuses): per kernel, registers per thread, stack
frame (spills show up here), shared memory per CTA, CTAs of it per SM by registers and shared memory, and the
tensor-core ops in its SASS. Each variant's kernels are compiled as its kda_forward launches them (K = V = 128,
bf16 on the GPU); the inter kernel for BLOCK_V 16 and 64 unless the variant fixes it. Kernels compiled once are
not repeated. Says nothing about speed; it catches compile failures, spills and occupancy before a GPU call.
"""

import os
import sys
from pathlib import Path

LAB = Path(__file__).resolve().parent
sys.path.insert(0, str(LAB))

from compile_fast_sm90 import K, PTR16, PTR32, V, _import  # noqa: E402
from compile_fast_sm90 import _compile as _compile_fast  # noqa: E402


def _compile(kernel, signature: dict, constants: dict, num_warps: int, num_stages: int, maxnreg: int | None) -> dict:
    """compile_fast_sm90._compile, plus the register cap (ptx .maxnreg) that kda_forward passes as maxnreg."""
    import triton

    if maxnreg is None:
        return _compile_fast(kernel, signature, constants, num_warps, num_stages)
    compile_original = triton.compile

    def compile_capped(source, target=None, options=None):
        return compile_original(source, target=target, options=dict(options or {}, maxnreg=maxnreg))

    triton.compile = compile_capped  # _compile_fast calls triton.compile(source, target=..., options=...)
    try:
        return _compile_fast(kernel, signature, constants, num_warps, num_stages)
    finally:
        triton.compile = compile_original


PTR_X = {"fp32": PTR32, "bf16": PTR16}


def split_kernels(config: dict) -> dict:
    """(kernel label -> (kernel, signature, constants, warps, stages, maxnreg)) for one variant, as kda_forward launches."""
    import triton.language as tl

    split = _import(LAB.parent / "solutions" / "house.py", "kda_house_split_compile")
    cfg = dict(split.BASE, **config)
    pipeline, x_ptr = cfg["pipeline"], PTR_X[cfg["x_dtype"]]
    block_k, block_k_wu = min(cfg["block_k"], K), min(cfg["block_k_wu"], K, V)
    scalars = dict(T="i32", H="i32", NT="i32")
    out = {}
    pairs_sig = {n: PTR16 for n in ("q_ptr", "k_ptr", "beta_ptr", "aqk_ptr", "qg_ptr", "kg_ptr", "kbg_ptr")}
    pairs_sig.update(g_ptr=PTR32, akk_ptr=x_ptr, gl_ptr=PTR32, scale="fp32", **scalars)
    solve_in_pairs = pipeline == "pairs-solve"
    out[
        f"pairs bk{block_k} r{cfg['pairs_maxnreg'] or 255} x:{cfg['x_dtype']}{' +solve' if solve_in_pairs else ''}{' qk/2' if cfg['split_qk'] else ''} w{cfg['pairs_warps']}"
    ] = (
        split._kda_split_pairs,
        pairs_sig,
        dict(
            K=K,
            C=64,
            SUB=16,
            BK=block_k,
            DT=tl.bfloat16,
            SOLVE=solve_in_pairs,
            PREC="tf32",
            SPLIT_QK=bool(cfg["split_qk"]),
        ),
        cfg["pairs_warps"],
        1,
        cfg["pairs_maxnreg"],
    )
    solve_sig = {n: PTR16 for n in ("kbg_ptr", "v_ptr", "beta_ptr", "w_ptr", "u_ptr")}
    solve_sig.update(akk_ptr=x_ptr, x_ptr=x_ptr, **scalars)
    if pipeline == "split3" and cfg["solve"] == "blocked16":
        out[f"solve blocked16 r{cfg['solve_maxnreg'] or 255} x:{cfg['x_dtype']} w{cfg['solve_warps']}"] = (
            split._kda_split_solve_blocked,
            {"akk_ptr": x_ptr, "x_ptr": x_ptr, "NT": "i32"},
            {"C": 64, "SUB": 16, "PREC": "tf32"},
            cfg["solve_warps"],
            1,
            cfg["solve_maxnreg"],
        )
    elif pipeline in ("solve-wu", "split3"):
        wu = pipeline == "solve-wu"
        out[
            f"solve{' +wu bk%d' % block_k_wu if wu else ''} r{cfg['solve_maxnreg'] or 255} x:{cfg['x_dtype']} w{cfg['solve_warps']}"
        ] = (
            split._kda_split_solve,
            solve_sig,
            dict(K=K, V=V, C=64, BK=block_k_wu, PREC="tf32", WU=wu),
            cfg["solve_warps"],
            1,
            cfg["solve_maxnreg"],
        )
    if pipeline != "solve-wu":
        wu_sig = {n: PTR16 for n in ("kbg_ptr", "v_ptr", "beta_ptr", "w_ptr", "u_ptr")}
        wu_sig.update(x_ptr=x_ptr, **scalars)
        out[f"wu bk{block_k_wu} r{cfg['wu_maxnreg'] or 255} x:{cfg['x_dtype']} w{cfg['wu_warps']}"] = (
            split._kda_split_wu,
            wu_sig,
            dict(K=K, V=V, C=64, BK=block_k_wu),
            cfg["wu_warps"],
            1,
            cfg["wu_maxnreg"],
        )
    for block_v in [cfg["block_v"]] if cfg["block_v"] else [16, 64]:
        constants = dict(K=K, V=V, BV=block_v, C=64, DT=tl.bfloat16)
        if cfg["inter"] == "tma":
            sig = {
                "w_desc": "tensordesc<bf16[1, 64, 1, 128]>",
                "u_desc": f"tensordesc<bf16[1, 64, 1, {block_v}]>",
                "qg_desc": "tensordesc<bf16[1, 64, 1, 128]>",
                "kg_desc": "tensordesc<bf16[1, 64, 1, 128]>",
                "a_desc": "tensordesc<bf16[64, 64]>",
                "gl_ptr": PTR32,
                "o_desc": f"tensordesc<bf16[1, 64, 1, {block_v}]>",
                **scalars,
            }
            kernel = split._kda_inter_tma
        else:
            sig = {n: PTR16 for n in ("w_ptr", "u_ptr", "qg_ptr", "kg_ptr", "a_ptr", "o_ptr")}
            sig.update(gl_ptr=PTR32, **scalars)
            kernel = split._kda_inter
        label = f"inter {cfg['inter']} BV{block_v} w{cfg['inter_warps']} s{cfg['inter_stages']}"
        out[label] = (kernel, sig, constants, cfg["inter_warps"], cfg["inter_stages"], None)
    return out


def main(argv: list[str]) -> None:
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return
    os.environ.pop("TRITON_INTERPRET", None)
    variants = _import(LAB.parent / "solutions" / "house.py", "kda_house_split_names").VARIANTS
    unknown = [name for name in argv if name not in variants]
    if unknown:
        raise SystemExit(f"compile_split_sm90: no variant {unknown} in the house's VARIANTS ({list(variants)})")
    print(
        f"{'variant':<28} {'kernel':<34} {'regs':>4} {'stack B':>7} {'shared B':>8} {'CTA/SM':>6} {'HGMMA':>5} "
        f"{'HMMA':>5} {'EX2':>5}"
    )
    done: dict[str, dict] = {}
    for name in argv or list(variants):
        for label, (kernel, sig, constants, warps, stages, maxnreg) in split_kernels(variants[name]).items():
            if label not in done:
                done[label] = _compile(kernel, sig, constants, warps, stages, maxnreg)
            r = done[label]
            print(
                f"{name:<28} {label:<34} {r['registers']:>4} {r['stack_bytes']:>7} {r['shared_bytes']:>8} "
                f"{r['ctas_per_sm']:>6} {r['hgmma']:>5} {r['hmma']:>5} {r['mufu_ex2']:>5}",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
