"""Fixes for Triton's CPU interpreter, which the CPU profile runs Triton kernels in.

Triton 3.6-3.9's interpreter keeps bfloat16 tensors as raw 16-bit integers in numpy, and:
* its dot multiplies those integers (measured: a 16x16 bf16 dot off by 2e10). Widening bf16 operands
  to float32 before the product gives the right answer: bf16 is the top half of an fp32 bit pattern.
* its fp32 -> bf16 cast truncates, where the GPU rounds to nearest even (measured by the paged-attention
  and W4A16 work: a 2^-9 mean relative bias, enough to push honest kernels to their tolerance).
The GPU path never loads this module.
"""

from __future__ import annotations

import os


def _bf16_bits_to_float32(data):
    import numpy as np

    return (data.astype(np.uint32) << 16).view(np.float32)


def _float32_to_bf16_bits(data):
    """Round-to-nearest-even fp32 -> bf16, as uint16 bit patterns (NaN stays a quiet NaN)."""
    import numpy as np

    values = data.astype(np.float32)
    bits = values.view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(values)
    rounded[nan] = ((bits[nan] >> 16) | 0x0040).astype(np.uint16)
    return rounded


def apply() -> bool:
    """Patch the interpreter's dot when TRITON_INTERPRET=1; True if the patch was applied."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        return False
    try:
        import triton.language as tl
        from triton.runtime import interpreter
    except ImportError:
        return False
    builder = interpreter.InterpreterBuilder
    if getattr(builder.create_dot, "_ceiling_bf16_fix", False):
        return True
    original = builder.create_dot

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if a.dtype == tl.bfloat16 or b.dtype == tl.bfloat16:
            import numpy as np

            a_data = _bf16_bits_to_float32(a.data) if a.dtype == tl.bfloat16 else a.data.astype(np.float32)
            b_data = _bf16_bits_to_float32(b.data) if b.dtype == tl.bfloat16 else b.data.astype(np.float32)
            return interpreter.TensorHandle(np.matmul(a_data, b_data, dtype=d.data.dtype) + d.data, d.dtype.scalar)
        return original(self, a, b, d, input_precision, max_num_imprecise_acc)

    original_cast = builder.cast_impl

    def cast_impl(self, src, dst_type):
        if src.dtype.scalar == tl.float32 and dst_type.scalar == tl.bfloat16:
            return interpreter.TensorHandle(_float32_to_bf16_bits(src.data), dst_type.scalar)
        return original_cast(self, src, dst_type)

    create_dot._ceiling_bf16_fix = True
    builder.create_dot = create_dot
    builder.cast_impl = cast_impl
    return True
