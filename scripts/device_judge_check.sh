#!/bin/bash
# One device call for issue 32: every house kernel through the judge/worker split (all shape sets, audits
# on, lines off), the same house kernels at the commit before the split (OLD, visible shapes) for the
# score comparison, and the grader-tampering corpus cases. Logs and result files in $OUT/judge_check.tgz (the device returns 8 files at most).
#   bash scripts/device_judge_check.sh OLD_COMMIT
set -uo pipefail
cd "$(dirname "$0")/.."
old=${1:?old commit}
export PYTHONUNBUFFERED=1
work=/tmp/judge_check
mkdir -p "$work/new" "$work/old"
for p in fp8_gemm topk paged_attention softmax w4a16_gemm moe_swiglu kda; do
  timeout 150 python3 -m scoring.run problem=$p lines=none budget_s=3 out="$work/new" > "$work/new/$p.log" 2>&1
  echo "new $p rc=$? $(grep -E '^solution ' "$work/new/$p.log" | cut -c1-120)"
done
git worktree add -q /tmp/old "$old" 2>/dev/null
for p in fp8_gemm topk paged_attention; do
  (cd /tmp/old && timeout 120 python3 -m scoring.run problem=$p shapes=visible lines=none budget_s=3 out="$work/old" > "$work/old/$p.log" 2>&1)
  echo "old $p rc=$? $(grep -E '^solution ' "$work/old/$p.log" | cut -c1-120)"
  timeout 120 python3 -m scoring.run problem=$p shapes=visible lines=none budget_s=3 out="$work/new" > "$work/new/$p.visible.log" 2>&1
  echo "new $p visible rc=$? $(grep -E '^solution ' "$work/new/$p.visible.log" | cut -c1-120)"
done
timeout 200 python3 -m scoring.corpus only=X30,X32,X14,X11,X10_side,X02,X04 kinds=adversary out="$work/corpus" > "$work/corpus.log" 2>&1
tail -22 "$work/corpus.log"
tar czf "$OUT/judge_check.tgz" -C "$work" .
