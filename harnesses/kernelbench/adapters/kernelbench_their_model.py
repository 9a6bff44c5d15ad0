"""What every kernelbench.com adapter does with the agent's Model: build it holding our buffers, and build
the agent's C++/CUDA extension while the solution is imported.

Copied beside each adapter into a run's folder (harnesses/kernelbench/layout.py), so the adapters import
it by this name from their own folder; not a solution itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import torch

# What in an agent's file says it compiles an extension (torch's cpp_extension, nvcc, CUTLASS).
_BUILDS = re.compile(r"load_inline|cpp_extension|\bnvcc\b|cutlass", re.IGNORECASE)
# What a failed build says (torch's cpp_extension, ninja, nvcc, a missing header).
_BUILD_FAILED = re.compile(r"Error building extension|ninja: build stopped|nvcc|No such file or directory|"
                           r"fatal error|CalledProcessError", re.IGNORECASE)


def _meta_leftovers(model: torch.nn.Module, replaced: set) -> list[str]:
    """Names of the model's tensors still on the meta device, other than the state-dict entries `replaced`
    (buffers, parameters, and tensors kept as attributes, alone or in a list, tuple or dict)."""
    left = []
    for prefix, module in model.named_modules():
        named = list(module._buffers.items()) + list(module._parameters.items())
        for name, value in vars(module).items():
            if name not in ("_buffers", "_parameters", "_modules"):
                items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) \
                    else [value]
                named += [(name, item) for item in items]
        for name, tensor in named:
            full = f"{prefix}.{name}" if prefix else name
            if isinstance(tensor, torch.Tensor) and tensor.is_meta and full not in replaced:
                left.append(full)
    return left


def _on_meta(model_class, init_args: tuple, state_dict: dict):
    """Their Model built on the meta device with our buffers assigned, or None where that is not safe."""
    try:
        with torch.device("meta"):
            model = model_class(*init_args)
        if _meta_leftovers(model, set(state_dict)):
            return None
        model.load_state_dict(state_dict, strict=True, assign=True)
    except Exception:  # noqa: BLE001 - any failure on meta: the caller builds it their way (real errors surface)
        return None
    return None if _meta_leftovers(model, set()) else model.eval()


def build_their_model(model_class, init_args: tuple, state_dict: dict, device) -> torch.nn.Module:
    """Their Model holding our buffers: on meta where safe (their constructors draw random weights on the CPU,
    seconds for the large shapes, and every M shares the one set of buffers), else as their check.py builds
    it (`Model(*init_args).to(device)`, then `load_state_dict(strict=True)`)."""
    model = _on_meta(model_class, init_args, state_dict)
    if model is None:
        model = model_class(*init_args).to(device).eval()
        model.load_state_dict(state_dict, strict=True)
    return model


def builds_an_extension(agent_module) -> bool:
    """Whether the agent's file (or a sidecar beside it) compiles C++/CUDA."""
    if not getattr(agent_module, "__file__", None):
        return False
    folder = Path(agent_module.__file__).resolve().parent
    texts = [Path(agent_module.__file__).read_text(errors="replace")]
    texts += [p.read_text(errors="replace") for p in folder.glob("*.cu")]
    return any(_BUILDS.search(text) for text in texts)


def build_while_importing(agent_module, first_call) -> None:
    """Run `first_call` (one small forward of their Model) now, on a GPU, when the agent compiles an extension:
    a lazy build then happens during the scorer's import phase, under its own limit (import_timeout_s) and
    recorded as import time, instead of inside the first shape; and a build that fails fails the import
    once, with the compiler's reason, instead of being retried on every shape."""
    if not torch.cuda.is_available() or not builds_an_extension(agent_module):
        return
    try:
        with torch.no_grad():
            first_call()
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 - a build failure is re-raised as the import's, reason kept
        reason = build_failure_reason(exc)
        if reason:  # else it built, or never got to building: the small shape failed otherwise; the shapes decide
            raise ImportError(f"the agent's extension did not build while importing: {reason}") from exc


def build_failure_reason(exc: BaseException) -> str | None:
    """The compiler's reason when `exc` is a failed build (its first line that names an error), else None."""
    text = str(exc)
    if not _BUILD_FAILED.search(text):
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # A compiler's "file:line: error: ..." first; torch's "Error building extension" says less.
    reason = next((line for line in lines if "error:" in line.lower()),
                  next((line for line in lines if "error" in line.lower()), lines[-1] if lines else ""))
    return f"{type(exc).__name__}: {reason[:400]}"
