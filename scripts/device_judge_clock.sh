#!/bin/bash
# One device call for issue 32's judge clock and gate (2026-11-27, third session): the house kernels before the
# judge/worker split (.scratch/old_design, see device_judge_ab.sh) against this tree, interleaved; the
# adversaries that forge or hide time; then the other house kernels through this tree alone. Everything is
# packed into $OUT/LABEL.tgz after each step (a call cut off keeps what it measured).
#     here:   bash scripts/device_head.sh pack; run with carry [".scratch"]
#     there:  bash scripts/device_judge_clock.sh LABEL
set -uo pipefail
cd "$(dirname "$0")/.."
label="${1:?usage: bash scripts/device_judge_clock.sh LABEL}"
export PYTHONUNBUFFERED=1
deadline=$((SECONDS + ${LIMIT_S:-560}))
work="$(mktemp -d "/tmp/clock-$label-XXXXXX")"
pack() { tar -czf "${OUT:?}/$label.tgz" -C "$work" .; }
LIMIT_S=330 PER_PROBLEM_S=110 OUT="$work" bash scripts/device_judge_ab.sh ab fp8_gemm,softmax,kda,paged_attention 1
left=$((deadline - SECONDS))
timeout $(( left < 120 ? left : 120 )) python -m scoring.corpus kinds=adversary jobs=1 out="$work/corpus" \
  only=X10_finishes,X30_relays,X30_shortens,X10_side,X10_warms > "$work/corpus.log" 2>&1
echo "corpus exit $?"; grep -E "^\[" "$work/corpus.log"; pack
for p in moe_swiglu topk w4a16_gemm; do
  left=$((deadline - SECONDS)); (( left < 40 )) && { echo "$p skipped"; continue; }
  timeout "$left" python -m scoring.run problem=$p lines=none budget_s=3 out="$work/new" > "$work/new-$p.log" 2>&1
  echo "new $p exit $? $(grep -E '^solution ' "$work/new-$p.log" | cut -c1-100)"; pack
done
