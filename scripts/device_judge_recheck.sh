#!/bin/bash
# The second device call for issue 32: the house kernels that ran out of memory or slowed down in the
# first (device_judge_check.sh), after the fixes, and the X30 forgers. Everything in $OUT/judge_recheck.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
work=/tmp/judge_recheck
mkdir -p "$work/new"
for p in paged_attention fp8_gemm softmax moe_swiglu; do
  timeout 150 python3 -m scoring.run problem=$p lines=none budget_s=3 out="$work/new" > "$work/new/$p.log" 2>&1
  echo "new $p rc=$? $(grep -E '^solution ' "$work/new/$p.log" | cut -c1-120)"
done
timeout 150 python3 -m scoring.corpus only=X30 kinds=adversary out="$work/corpus" > "$work/corpus.log" 2>&1
tail -8 "$work/corpus.log"
tar czf "$OUT/judge_recheck.tgz" -C "$work" .
