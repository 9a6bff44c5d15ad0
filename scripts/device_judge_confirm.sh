#!/bin/bash
# One device call that confirms the judged clock (scoring/judge/cross_check.py) where it was only replayed: every
# house kernel through this tree (all shape sets, audits on, lines off) must pass, and the time forgers, red team
# round 6's three included, get their expected verdicts; then scripts/replay_judge_clock.py over both, the
# refill-to-GO and snapshot spans per shape in its table's result files. Between the two, scripts/lab_judge_switch.py
# (at most 90 s). Everything in $OUT/LABEL.tgz, packed after each step (a call cut off keeps what it measured).
#     here:   bash scripts/device_head.sh pack; run with carry [".scratch/head.commit"]
#     there:  bash scripts/device_judge_confirm.sh LABEL    (ONLY=... picks other corpus cases, HOUSE=... other problems,
#             LAB_ARGS=... the lab's options, JOBS=... the corpus's jobs; LIMIT_S bounds the call)
set -uo pipefail
cd "$(dirname "$0")/.."
label="${1:?usage: bash scripts/device_judge_confirm.sh LABEL}"
bash scripts/device_head.sh unpack
export PYTHONUNBUFFERED=1
deadline=$((SECONDS + ${LIMIT_S:-560}))
work="$(mktemp -d "/tmp/confirm-$label-XXXXXX")"
pack() { tar -czf "${OUT:?}/$label.tgz" -C "$work" .; }
for p in ${HOUSE-fp8_gemm softmax paged_attention moe_swiglu topk w4a16_gemm kda}; do
  left=$((deadline - SECONDS - 200)); (( left < 30 )) && { echo "house $p skipped"; continue; }
  timeout "$left" python -m scoring.run problem=$p lines=none budget_s=3 out="$work/house" > "$work/house-$p.log" 2>&1
  echo "house $p exit $? $(grep -E '^solution ' "$work/house-$p.log" | cut -c1-110)"; pack
done
# The clock reduced to the judge and a worker of known work, stamping the GPU's global timer: where the span goes.
timeout 90 python scripts/lab_judge_switch.py ${LAB_ARGS:-} out="$work/lab" > "$work/lab.txt" 2>&1; echo "lab exit $?"; tail -13 "$work/lab.txt"
pack
left=$((deadline - SECONDS)); (( left > 30 )) && timeout "$left" python -m scoring.corpus kinds=adversary jobs="${JOBS:-1}" \
  only="${ONLY:-X10_finishes,X10_computes,X10_side,X30_}" out="$work/corpus" > "$work/corpus.log" 2>&1
grep -E "^\[" "$work/corpus.log"
python scripts/replay_judge_clock.py "$work/house" "$work/corpus" > "$work/replay.txt" 2>&1; echo "replay exit $?"
grep -E "^(house|others)" "$work/replay.txt"; head -4 "$work/replay.txt" | tail -3; pack
