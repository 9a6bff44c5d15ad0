"""Seeds: a public seed (in the config, reproducible) mixed with a per-run secret (X06).

The secret is drawn in the grading parent, never placed in the solution's environment, and logged in
the result so that a run can be replayed exactly (`seed_secret=<hex>` on the command line).
"""

from __future__ import annotations

import hashlib
import secrets


def derive_seed(base: int, *labels: object) -> int:
    """A 64-bit seed from a base seed and labels (shape name, purpose, index): stable across machines."""
    text = repr((int(base),) + tuple(str(label) for label in labels)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little")


def new_secret() -> str:
    return secrets.token_hex(8)


def mix(public_seed: int, secret_hex: str) -> int:
    return derive_seed(public_seed, "secret", secret_hex)
