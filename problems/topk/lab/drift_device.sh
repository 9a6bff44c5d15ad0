#!/bin/bash
# The drift probe's device call (drift_probe.py says what it looks for), in one command on a lent GPU:
#     here:   bash scripts/device_head.sh pack; run with carry [".scratch"]
#     there:  bash problems/topk/lab/drift_device.sh [RUNS_BEFORE] [HEAT_S] [RUNS_AFTER]
# The placement probe, then RUNS_BEFORE scoring runs of the house kernel (house only, no audits: the
# solution's timing as a run makes it, each run's gpu_state per shape), HEAT_S seconds of matmuls, and
# RUNS_AFTER runs more. Everything lands in $OUT/drift.tar.gz.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bash scripts/device_head.sh unpack
before="${1:-4}" heat_s="${2:-40}" after="${3:-4}"
work="$(mktemp -d /tmp/drift-XXXXXX)"
mkdir -p "$work/runs"
pack() { tar -czf "${OUT:?the output folder the device tool returns}/drift.tar.gz" -C "$work" .; }
trap pack EXIT
python problems/topk/lab/drift_probe.py placement "out=$work/placement.json" | head -3
score() {
  python -m scoring.run problem=topk device=cuda lines=none audits=false progress=false "out=$work/runs" \
    | grep '^result: ' >> "$work/runs.txt"
}
for _ in $(seq "$before"); do score; done
python problems/topk/lab/drift_probe.py heat "seconds=$heat_s" "out=$work/heat.json"
for _ in $(seq "$after"); do score; done
