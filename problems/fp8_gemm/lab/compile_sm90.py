"""Compile the warp-specialised candidate's variants for sm_90 without a GPU, and say what the compiler made of each.

    python problems/fp8_gemm/lab/compile_sm90.py [VARIANT ...]

Triton compiles for a named target (GPUTarget("cuda", 90, 32)) on any machine; ptxas and cuobjdump ship with it.
Per variant: whether the kernel came out warp-specialised (a ttg.warp_specialize op in the TTGIR, and the warps
it launches with), whether every wgmma kept fp32 promotion (maxNumImpreciseAcc on each warp_group_dot), the
registers per thread at launch and the stack frame (spills), and the shared memory per CTA (the H100 allows
232448 B). This is what the GPU session's Triton 3.6.0 compiles too; it says nothing about speed.
"""

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

LAB = Path(__file__).resolve().parent
H100_SHARED_BYTES = 232448


def _candidate():
    spec = importlib.util.spec_from_file_location("fp8_house_ws_compile", LAB / "house_warp_specialized.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_sm90(config: dict, check: bool = True) -> dict:
    """One variant compiled for sm_90: {warp_specialized, launch_warps, promoted_dots, dots, registers,
    stack_bytes, shared_bytes}. check=False skips house_warp_specialized.check_config (to show what it guards)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    candidate = _candidate()
    if check:
        candidate.check_config(config)
    kernel = candidate._fp8_gemm_ws_kernel
    bm, bn, bk = config["BLOCK_M"], config["BLOCK_N"], config["BLOCK_K"]
    signature = {"a_desc": f"tensordesc<fp8e4nv[{bm}, {bk}]>", "b_desc": f"tensordesc<fp8e4nv[{bn}, {bk}]>",
                 "c_desc": f"tensordesc<bf16[{bm}, {bn}]>", "c_ptr": "*bf16", "a_scale_ptr": "*fp32",
                 "b_scale_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}
    constants = {k: v for k, v in config.items() if k not in ("num_warps", "num_stages")}
    constants["NUM_PROGRAMS"] = 132
    if config["EPILOGUE"] != candidate.EPILOGUE_HOST_TMA:
        signature["c_desc"] = "constexpr"
        constants["c_desc"] = None
    signature.update({name: "constexpr" for name in constants if name != "c_desc"})
    source = ASTSource(kernel, signature, constexprs={(kernel.arg_names.index(k),): v for k, v in constants.items()})
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                              options={"num_warps": config["num_warps"], "num_stages": config["num_stages"]})
    ttgir = compiled.asm["ttgir"]
    dots = re.findall(r"ttng.warp_group_dot [^\n]*", ttgir)
    tools = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "kernel.cubin"
        cubin.write_bytes(compiled.asm["cubin"])
        usage = subprocess.run([str(tools / "cuobjdump"), "-res-usage", str(cubin)], capture_output=True,
                               text=True, check=True).stdout
    return {"warp_specialized": "ttg.warp_specialize" in ttgir, "launch_warps": compiled.metadata.num_warps,
            "promoted_dots": sum("maxNumImpreciseAcc = " in d and "maxNumImpreciseAcc = 0 " not in d for d in dots),
            "dots": len(dots), "registers": int(re.search(r"REG:(\d+)", usage).group(1)),
            "stack_bytes": int(re.search(r"STACK:(\d+)", usage).group(1)), "shared_bytes": compiled.metadata.shared}


def main(argv: list[str]) -> None:
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return
    os.environ.pop("TRITON_INTERPRET", None)
    variants = _candidate().VARIANTS
    unknown = [name for name in argv if name not in variants]
    if unknown:
        raise SystemExit(f"compile_sm90: no variant {unknown} in house_warp_specialized.VARIANTS ({list(variants)})")
    print(f"{'variant':<32} {'ws':>3} {'warps':>5} {'promoted':>9} {'regs':>4} {'stack B':>7} {'shared B':>8}")
    for name in argv or list(variants):
        r = compile_sm90(variants[name])
        fits = "" if r["shared_bytes"] <= H100_SHARED_BYTES else "  (over the H100's shared memory)"
        print(f"{name:<32} {'yes' if r['warp_specialized'] else 'no':>3} {r['launch_warps']:>5} "
              f"{r['promoted_dots']:>4}/{r['dots']:<4} {r['registers']:>4} {r['stack_bytes']:>7} "
              f"{r['shared_bytes']:>8}{fits}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
