#!/bin/bash
# KDA one solution with its lines cached (the committed results/h100_sxm), three runs, wall time each.
bash scripts/device_head.sh unpack
pip install -q --no-index --no-deps --target /tmp/fla-site .whl/fla_core-*.whl 2>/dev/null
export PYTHONPATH="/tmp/fla-site${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p $OUT/k
touch /tmp/kda_marker
for i in 1 2 3; do
  python - "$i" <<'PY'
import subprocess, sys, time, json
start = time.perf_counter()
done = subprocess.run([sys.executable, "-m", "scoring.run", "problem=kda", "device=cuda", "progress=false"], capture_output=True, text=True)
wall = time.perf_counter() - start
path = [l[len("result: "):].strip() for l in done.stdout.splitlines() if l.startswith("result: ")]
r = json.load(open(path[-1])) if path else {}
systems = r.get("systems", [])
print(f"run {sys.argv[1]}: exit {done.returncode} wall {wall:.1f} s; solution {systems[0]['wall_s']:.1f} s, started ahead {systems[0]['processes'][0]['started_ahead_s']} s; lines cached {[bool(s.get('cached_from')) for s in systems[1:]]} {[s['status'] for s in systems[1:]]}; {path[-1] if path else done.stderr[-500:]}")
PY
done 2>&1 | tee $OUT/k/kda_one.log
find results/h100_sxm -maxdepth 1 -name '*-kda-*.json' -newer /tmp/kda_marker -exec cp {} $OUT/k/ \;; ls $OUT/k
tar czf $OUT/k.tar.gz -C $OUT k
