"""Compile the house's and house_fast.py's kernels for sm_90 without a GPU, and report what ptxas made of each.

    python problems/kda/lab/compile_fast_sm90.py [VARIANT ...]

Triton compiles for a named target (GPUTarget("cuda", 90, 32)) on any machine; ptxas and cuobjdump ship with it.
Per kernel: registers per thread, stack frame (spills show up here), shared memory per CTA, how many CTAs of
it fit one SM by registers and shared memory (65536 registers, 232448 B), and the tensor-core ops in its SASS
(HGMMA: wgmma, HMMA: mma.sync). This says nothing about speed; it catches compile failures, spills and
occupancy before a GPU call.
"""

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

LAB = Path(__file__).resolve().parent
PROBLEM = LAB.parent
H100_SHARED_BYTES = 232448
H100_REGISTERS = 65536
K = V = 128


def _import(path: Path, name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compile(kernel, signature: dict, constants: dict, num_warps: int, num_stages: int) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    signature = dict(signature, **{name: "constexpr" for name in constants})
    source = ASTSource(kernel, signature, constexprs={(kernel.arg_names.index(k),): v for k, v in constants.items()})
    compiled = triton.compile(
        source, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps, "num_stages": num_stages}
    )
    tools = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "kernel.cubin"
        cubin.write_bytes(compiled.asm["cubin"])
        usage = subprocess.run(
            [str(tools / "cuobjdump"), "-res-usage", str(cubin)], capture_output=True, text=True, check=True
        ).stdout
        sass = subprocess.run(
            [str(tools / "cuobjdump"), "-sass", str(cubin)], capture_output=True, text=True, check=True
        ).stdout
    registers = int(re.search(r"REG:(\d+)", usage).group(1))
    shared = compiled.metadata.shared
    by_registers = H100_REGISTERS // (registers * 32 * num_warps)
    by_shared = H100_SHARED_BYTES // shared if shared else 32
    return {
        "registers": registers,
        "stack_bytes": int(re.search(r"STACK:(\d+)", usage).group(1)),
        "shared_bytes": shared,
        "ctas_per_sm": min(by_registers, by_shared, 32),
        "hgmma": len(re.findall(r"\bHGMMA\b", sass)),
        "hmma": len(re.findall(r"\bHMMA\b", sass)),
        "mufu_ex2": len(re.findall(r"MUFU\.EX2", sass)),
        "sass_lines": sass.count("\n"),
    }


PTR16, PTR32 = "*bf16", "*fp32"


def house_kernels() -> dict:
    import triton.language as tl

    house = _import(PROBLEM / "solutions" / "house.py", "kda_house_compile")
    intra_sig = {
        n: PTR16 for n in ("q_ptr", "k_ptr", "v_ptr", "beta_ptr", "w_ptr", "u_ptr", "qg_ptr", "kg_ptr", "a_ptr")
    }
    intra_sig.update(g_ptr=PTR32, gl_ptr=PTR32, T="i32", H="i32", NT="i32", scale="fp32")
    intra = _compile(
        house._kda_intra,
        intra_sig,
        dict(K=K, V=V, C=64, SUB=16, DT=tl.bfloat16, DELTA=True, SOLVE_PRECISION="tf32"),
        8,
        1,
    )
    inter_sig = {n: PTR16 for n in ("w_ptr", "u_ptr", "qg_ptr", "kg_ptr", "a_ptr", "o_ptr")}
    inter_sig.update(gl_ptr=PTR32, T="i32", H="i32", NT="i32")
    inter = _compile(house._kda_inter, inter_sig, dict(K=K, V=V, BV=64, C=64, DT=tl.bfloat16), 4, 2)
    return {"house intra": intra, "house inter (BV 64)": inter}


def fast_kernels(name: str, config: dict) -> dict:
    import triton.language as tl

    fast = _import(LAB / "house_fast.py", "kda_house_fast_compile")
    cfg = dict(fast.BASE, **config)
    intra_sig = {
        n: PTR16 for n in ("q_ptr", "k_ptr", "v_ptr", "beta_ptr", "w_ptr", "u_ptr", "qx_ptr", "kg_ptr", "ox_ptr")
    }
    intra_sig.update(g_ptr=PTR32, gl_ptr=PTR32, T="i32", H="i32", NT="i32", scale="fp32")
    operand = tl.bfloat16 if cfg["operand"] == "bf16" else tl.float32
    block_k = min(cfg["block_k"], K)
    if cfg["intra"] == "house":  # house_fast's copy of the house's kernel 1, launched as kda_forward does
        house_sig = {
            n: PTR16 for n in ("q_ptr", "k_ptr", "v_ptr", "beta_ptr", "w_ptr", "u_ptr", "qg_ptr", "kg_ptr", "a_ptr")
        }
        house_sig.update(g_ptr=PTR32, gl_ptr=PTR32, T="i32", H="i32", NT="i32", scale="fp32")
        intra = _compile(
            fast._kda_intra,
            house_sig,
            dict(K=K, V=V, C=64, SUB=16, DT=tl.bfloat16, DELTA=True, SOLVE_PRECISION=cfg["solve_precision"]),
            cfg["intra_warps"],
            1,
        )
    else:
        intra = _compile(
            fast._kda_intra_fast,
            intra_sig,
            dict(
                K=K,
                V=V,
                C=64,
                SUB=16,
                BK=block_k,
                BVI=min(block_k, V),
                DT=operand,
                PREC=cfg["solve_precision"],
                FOLD=bool(cfg["fold"]),
            ),
            cfg["intra_warps"],
            cfg["intra_stages"],
        )
    inter_sig = {n: PTR16 for n in ("w_ptr", "u_ptr", "qx_ptr", "kg_ptr", "ox_ptr", "o_ptr")}
    inter_sig.update(gl_ptr=PTR32, T="i32", H="i32", NT="i32")
    out = {f"{name} intra": intra}
    if cfg["inter_tma"]:  # the TMA kernel kda_forward launches: descriptors over (B, T, H, D), blocks [1, 64, 1, D]
        for block_v in [cfg["block_v"]] if cfg["block_v"] else [16, 64]:
            fold = bool(cfg["fold"])
            tma_sig = {
                "w_desc": "tensordesc<bf16[1, 64, 1, 128]>",
                "u_desc": f"tensordesc<bf16[1, 64, 1, {block_v}]>",
                "qx_desc": "tensordesc<bf16[1, 64, 1, 128]>",
                "kg_desc": "tensordesc<bf16[1, 64, 1, 128]>",
                "ox_desc": f"tensordesc<bf16[1, 64, 1, {block_v}]>" if fold else "tensordesc<bf16[64, 64]>",
                "gl_ptr": PTR32,
                "o_desc": f"tensordesc<bf16[1, 64, 1, {block_v}]>",
                "T": "i32",
                "H": "i32",
                "NT": "i32",
            }
            out[f"{name} inter TMA (BV {block_v})"] = _compile(
                fast._kda_inter_tma,
                tma_sig,
                dict(K=K, V=V, BV=block_v, C=64, DT=tl.bfloat16, FOLD=fold),
                cfg["inter_warps"],
                cfg["inter_stages"],
            )
        return out
    for block_v in [cfg["block_v"]] if cfg["block_v"] else [16, 64]:
        out[f"{name} inter (BV {block_v})"] = _compile(
            fast._kda_inter_fast,
            inter_sig,
            dict(K=K, V=V, BV=block_v, C=64, DT=tl.bfloat16, FOLD=bool(cfg["fold"])),
            cfg["inter_warps"],
            cfg["inter_stages"],
        )
    return out


def main(argv: list[str]) -> None:
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return
    os.environ.pop("TRITON_INTERPRET", None)
    variants = _import(LAB / "house_fast.py", "kda_house_fast_names").VARIANTS
    unknown = [name for name in argv if name not in variants]
    if unknown:
        raise SystemExit(f"compile_fast_sm90: no variant {unknown} in house_fast.VARIANTS ({list(variants)})")
    print(
        f"{'kernel':<40} {'regs':>4} {'stack B':>7} {'shared B':>8} {'CTA/SM':>6} {'HGMMA':>5} {'HMMA':>5} "
        f"{'EX2':>5} {'SASS':>6}"
    )
    rows = {} if argv else house_kernels()
    for name in argv or list(variants):
        rows.update(fast_kernels(name, variants[name]))
        for kernel, r in rows.items():
            print(
                f"{kernel:<40} {r['registers']:>4} {r['stack_bytes']:>7} {r['shared_bytes']:>8} "
                f"{r['ctas_per_sm']:>6} {r['hgmma']:>5} {r['hmma']:>5} {r['mufu_ex2']:>5} {r['sass_lines']:>6}",
                flush=True,
            )
        rows = {}


if __name__ == "__main__":
    main(sys.argv[1:])
