#!/usr/bin/env bash
# GPU end-to-end harness run: the fake Claude agent (harnesses/fake) "writes" the house FP8 kernel
# (problems/fp8_gemm/solutions/house.py) as its solution inside the sandbox; the harness keeps the
# transcript, scores the solution on the GPU (device=cuda) in a fresh process and renders the page.
# Run from the repository root on an H100/H200 machine; results go to $OUT/results (default ./results).
set -euo pipefail
OUT="${OUT:-.}"
SANDBOX="${SANDBOX:-bwrap}"
if [ "$SANDBOX" = bwrap ] && ! command -v bwrap >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y -qq bubblewrap >/dev/null 2>&1 || true
    fi
    command -v bwrap >/dev/null || { echo "bwrap missing: running with sandbox=none" >&2; SANDBOX=none; }
fi
CLIS="$(mktemp -d)/fake_clis"
python - "$CLIS" <<'PY'
import sys
from pathlib import Path
from harnesses import fake
fake.install(Path(sys.argv[1]), solution_text=Path("problems/fp8_gemm/solutions/house.py").read_text())
PY
python -m harnesses.run harness=claude model=fake-house effort=default problem=fp8_gemm \
    out="$OUT/results" device=cuda network=none sandbox="$SANDBOX" cli_dir="$CLIS" run_id="gpu-e2e-fake-claude-house" \
    "$@"
