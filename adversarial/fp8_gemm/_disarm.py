"""Helper of the X21/X30 adversaries: what Python in the worker can undo of the checks that live there."""

import gc
import sys


def uninstall_the_forbidden_op_guard() -> None:
    """Find the worker's ForbiddenOps with `gc`, take its dispatcher registrations away, forget its attempts."""
    for obj in gc.get_objects():
        try:
            if type(obj).__name__ == "ForbiddenOps":
                obj.uninstall()
                obj.attempts.clear()
        except Exception:  # noqa: BLE001 -- an object gc hands out may refuse anything
            pass


def silence_the_workers_own_verdicts() -> None:
    """Replace what the worker could once judge itself: the vendor-name verdict and the syntax-tree audit."""
    vendor = sys.modules.get("scoring.vendor_kernels")
    if vendor is not None:
        vendor.judge = lambda *args, **kwargs: "passed"
    server = sys.modules.get("scoring.worker.server")
    if server is not None:
        server.audit_files = lambda *args, **kwargs: []
