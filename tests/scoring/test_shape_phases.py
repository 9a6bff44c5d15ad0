"""Every shape, and every worker process's start-up, says where its wall time went (issue 17: measure before
making anything faster)."""

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_a_timed_shape_splits_its_wall_time_into_phases(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scoring.run",
            "problem=softmax",
            "device=cpu",
            "lines=none",
            "audits=false",
            "shapes=all",
            "check_seeds=1",
            "min_calls=2",
            "max_calls=3",
            "warmup_s=0",
            "progress=false",
            f"out={tmp_path}",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    path = [line[len("result: ") :] for line in done.stdout.splitlines() if line.startswith("result: ")][-1]
    system = json.loads(Path(path.strip()).read_text())["systems"][0]
    shapes = system["shapes"]
    timed = [shape for shape in shapes if "timing" in shape]
    checked_only = [shape for shape in shapes if "timing" not in shape]
    assert timed and checked_only  # visible/held-out shapes are timed, property shapes only checked
    for shape in timed:
        phases = shape["phases_s"]
        assert set(phases) == {"checks", "warm_up", "timed_calls", "last_call", "kernel_record"}
        assert all(seconds >= 0 for seconds in phases.values())
        assert phases["checks"] > 0 and phases["timed_calls"] > 0
        assert sum(phases.values()) <= shape["wall_s"] + 1e-6  # phases are parts of the shape's wall time
    for shape in checked_only:
        assert set(shape["phases_s"]) == {"checks"}
    # The worker's timed window is the scorer's to read; the CPU profile records no GPU state at all.
    assert not any("timed_window_monotonic_s" in shape or "gpu_state" in shape for shape in shapes)

    # One worker ran every shape; its start-up (the judge's view: the sandboxed worker's start, its own steps, the
    # clock's calibration, the solution's import) is split into steps, which are parts of spawn-to-imported
    # (the rest is the interpreter's start and the scorer's imports), itself part of the process's life.
    (process,) = system["processes"]
    assert system["processes_started"] == 1 and process["first_shape"] == 0
    steps = process["worker_startup_s"]
    assert set(steps) == {
        "worker_start",
        "kernel_recorder",
        "counter_reader",
        "call_server",
        "judge_clock_calibration",
        "solution_import",
    }
    assert all(seconds >= 0 for seconds in steps.values()) and steps["solution_import"] > 0
    assert sum(steps.values()) < process["spawn_to_imported_s"] < process["lifetime_s"] <= system["wall_s"]
    assert sum(shape["wall_s"] for shape in timed) < process["lifetime_s"]
