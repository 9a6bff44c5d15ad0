#!/bin/bash
# scripts/bench_deck.py on a lent GPU machine, with what a fresh machine lacks, in one command:
#     here:   bash scripts/device_head.sh pack; pip download fla-core==0.6.0 --no-deps -d .whl
#             run with carry [".scratch", ".whl"]
#     there:  LIMIT_S=540 bash scripts/device_bench_deck.sh LABEL [bench_deck.py arguments ...]
# HEAD is set from the carried bundle (so results name the commit), fla-core is installed from .whl/ when it
# is there (kda's library line; the machine has no network), and Triton's and Inductor's caches start empty
# in a folder of this invocation's own: a warm machine keeps /tmp between calls, and a "cold" deck would
# otherwise reuse kernels compiled by an earlier call. bench_deck.py stops after LIMIT_S seconds (the device
# tool's per-call limit is 600 s); whatever it wrote by then (the deck JSON, the runs' result files and logs)
# is packed into $OUT/LABEL.tar.gz, because the tool returns only a few files per call and no deep folders.
set -euo pipefail
cd "$(dirname "$0")/.."
label="${1:?usage: LIMIT_S=540 bash scripts/device_bench_deck.sh LABEL [bench_deck.py arguments ...]}"
shift
bash scripts/device_head.sh unpack
if compgen -G ".whl/fla_core-*.whl" > /dev/null; then
  pip install -q --no-index --no-deps --target /tmp/fla-site .whl/fla_core-*.whl
  export PYTHONPATH="/tmp/fla-site${PYTHONPATH:+:$PYTHONPATH}"
fi
work="$(mktemp -d "/tmp/deck-$label-XXXXXX")"
mkdir -p "$work/speed" "$work/runs"
export TRITON_CACHE_DIR="$work/caches/triton" TORCHINDUCTOR_CACHE_DIR="$work/caches/inductor"
status=0
timeout "${LIMIT_S:-540}" python scripts/bench_deck.py device=cuda "out=$work/speed" "results=$work/runs" "$@" \
  || status=$?
tar -czf "${OUT:?OUT: the output folder the device tool returns}/$label.tar.gz" -C "$work" speed runs
exit "$status"
