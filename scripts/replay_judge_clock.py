"""The judge's clock rule (scoring/judge/cross_check.py) replayed on result files already written.

    python scripts/replay_judge_clock.py RESULTS_DIR_OR_FILE ...

For every timed shape whose `judge_clock` holds the judge's GPU span (its median gap and the calibrated gap),
prints the excess over calibration, the rule's limit, their ratio and what the rule says, honest house kernels
and the rest apart. This is how the rule's limits were chosen from one run's records (results/judge/README.md):
records of a run made before the rule was judged read the same way (their keys were `gpu_gaps_us_median`).
Exits 1 when a house kernel's shape would fail, 0 otherwise.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring.judge.cross_check import detection_limit_us  # noqa: E402


def shape_rows(path: Path):
    """(solution name, shape, median us, excess us, limit us) for each shape the judge's GPU clock saw."""
    try:
        result = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    for system in result.get("systems", []) if isinstance(result, dict) else []:
        for shape in system.get("shapes", []):
            clock, timing = shape.get("judge_clock") or {}, shape.get("timing") or {}
            gap = clock.get("gpu_gap_us_median", clock.get("gpu_gaps_us_median"))
            calibrated = clock.get("calibrated_gpu_gap_us")
            if gap is None or calibrated is None or not timing.get("median_ms"):
                continue
            yield (
                system.get("name", "?"),
                f"{path.name[:60]}:{shape['name']}",
                timing["median_ms"] * 1e3,
                gap - calibrated,
                detection_limit_us(timing["median_ms"]),
            )


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("help", "-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    files = sorted(f for arg in argv for f in ([Path(arg)] if Path(arg).is_file() else Path(arg).rglob("*.json")))
    rows = [row for f in files for row in shape_rows(f)]
    house_failing = 0
    for title, keep in (("house kernels", lambda role: role == "house"), ("others", lambda role: role != "house")):
        chosen = [row for row in rows if keep(row[0])]
        print(f"{title}: {len(chosen)} shapes")
        for _, name, median_us, excess_us, limit_us in sorted(chosen, key=lambda r: -r[3] / r[4]):
            verdict = "FAILS" if excess_us > limit_us else "passes"
            print(
                f"  {name:80s} {median_us:9.1f} us  excess {excess_us:8.1f} us  limit {limit_us:7.1f} us  "
                f"{excess_us / limit_us:5.2f}  {verdict}"
            )
            house_failing += verdict == "FAILS" and title == "house kernels"
    return 1 if house_failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
