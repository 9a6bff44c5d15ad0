#!/bin/bash
# Device call A: the audit reservoir on a GPU (test_gpu.py, corpus X13/X20 cases, the new adversary at the old commit).
bash scripts/device_head.sh unpack
A=$OUT/a; mkdir -p $A
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $A/gpu.txt
python -c "import torch,triton;print(torch.__version__,triton.__version__)" >> $A/gpu.txt
start=$(date +%s)
timeout 300 python -m pytest -q -p no:cacheprovider -rs tests/scoring/test_gpu.py > $A/test_gpu.log 2>&1; echo "test_gpu rc=$? $(( $(date +%s)-start ))s" >> $A/steps.txt
start=$(date +%s)
timeout 200 python -m scoring.corpus only=X20_,X13_other_kernels,X13_honest kinds=adversary out=$A/corpus > $A/corpus.log 2>&1; echo "corpus rc=$? $(( $(date +%s)-start ))s" >> $A/steps.txt
start=$(date +%s)
git worktree add -q /tmp/old ec7b6ac && cp adversarial/fp8_gemm/_bf16.py adversarial/fp8_gemm/X20_bf16_past_the_first_timed_calls.py /tmp/old/adversarial/fp8_gemm/
(cd /tmp/old && timeout 90 python -m scoring.run problem=fp8_gemm solution=adversarial/fp8_gemm/X20_bf16_past_the_first_timed_calls.py shapes=visible seed_secret=0000000000000018 min_calls=5 max_calls=20 warmup_s=0.3 check_seeds=2 budget_s=2.0 lines=none out=$A/old) > $A/old.log 2>&1; echo "old-commit run rc=$? $(( $(date +%s)-start ))s" >> $A/steps.txt
tar czf $OUT/a.tar.gz -C $OUT a
cat $A/gpu.txt $A/steps.txt; tail -3 $A/test_gpu.log; grep -E "^(PASS|FAIL|MISMATCH|ok|  )|expected|mismatch" $A/corpus.log | tail -12
python - <<'PY'
import json,glob,os
for f in glob.glob(os.environ["OUT"]+"/a/old/**/*.json",recursive=True):
    r=json.load(open(f)); s=r["systems"][0]
    print("old", r.get("git",{}).get("commit","?")[:8] if isinstance(r.get("git"),dict) else "", s["status"], [(a["id"],a["outcome"][:60],a.get("timed_call_index")) for a in s.get("audits",[])])
PY
