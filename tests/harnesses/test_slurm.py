"""The SLURM executor against a real single-node SLURM (Debian's slurmctld and slurmd, with munge) that
this test starts in a temp folder and always stops: a sweep submitted as one sbatch job array, one job
per cell, finishes and writes its runs on the (here: local) shared file system; a second submission
skips the finished cells. Skips with the precise reason where the daemons cannot run."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harnesses import fake
from harnesses.score import REPO_ROOT
from tests.harnesses.conftest import needs_bwrap

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "sinfo")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _conf(d: Path, host: str) -> str:
    return f"""ClusterName=ceilingtest
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge.sock
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
NodeName={host} CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def _stop(d: Path) -> None:
    for name in ("slurmd", "slurmctld", "munged"):
        pid_file = d / f"{name}.pid"
        if pid_file.is_file():
            try:
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
            except (ProcessLookupError, ValueError):
                pass


def _tail(path: Path) -> str:
    return path.read_text()[-600:] if path.is_file() else f"({path.name} missing)"


@pytest.fixture
def slurm(tmp_path, monkeypatch):
    missing = [name for name in DAEMONS if not shutil.which(name)]
    if missing:
        pytest.skip(
            f"SLURM/munge not installed ({', '.join(missing)} missing): run scripts/install_test_system_packages.sh"
        )
    if os.geteuid() != 0:
        pytest.skip("the single-node SLURM test starts slurmd as root; not root here")
    d = tmp_path / "slurm"
    (d / "state").mkdir(parents=True)
    (d / "spool").mkdir()
    d.chmod(0o700)
    key = d / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    host = socket.gethostname().split(".")[0]
    (d / "slurm.conf").write_text(_conf(d, host))
    monkeypatch.setenv("SLURM_CONF", str(d / "slurm.conf"))
    try:
        steps = [
            [
                "munged",
                f"--socket={d}/munge.sock",
                f"--key-file={key}",
                f"--pid-file={d}/munged.pid",
                f"--log-file={d}/munged.log",
                f"--seed-file={d}/munge.seed",
                "--force",
            ],
            ["slurmctld", "-f", str(d / "slurm.conf")],
            ["slurmd", "-f", str(d / "slurm.conf")],
        ]
        for argv in steps:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            if proc.returncode != 0:
                log = _tail(d / f"{argv[0]}.log")
                pytest.skip(f"{argv[0]} did not start (exit {proc.returncode}): {proc.stderr.strip()} {log}")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            state = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, timeout=10).stdout
            if state.strip() in ("idle", "mix", "alloc"):
                break
            time.sleep(0.5)
        else:
            pytest.skip(
                f"the SLURM node never became idle (sinfo: {state.strip()!r}); slurmd log: {_tail(d / 'slurmd.log')}"
            )
        yield d
    finally:
        _stop(d)


@needs_bwrap
def test_sweep_on_slurm_job_array(slurm, tmp_path):
    clis = fake.install(tmp_path / "clis")
    out = tmp_path / "shared" / "results"
    sweep = tmp_path / "slurm_sweep.toml"
    sweep.write_text(f'''problems = ["fp8_gemm"]
trials = 1
[run]
out = "{out}"
device = "cpu"
network = "none"
cli_dir = "{clis}"
score = false
[[agents]]
harness = "claude"
model = "fake-a"
[[agents]]
harness = "droid"
model = "fake-b"
[slurm]
time_min = 10
''')
    argv = [sys.executable, "-m", "harnesses.sweep", str(sweep), "executor=slurm"]
    first = subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr + _tail(slurm / "slurmctld.log")
    assert "submitting 2 cells" in first.stdout
    runs = sorted((out / "cpu" / "runs").iterdir())
    assert len(runs) == 2
    for run in runs:
        assert json.loads((run / "run.json").read_text())["complete"]
    cell_logs = list((out / ".sweeps").glob("slurm_sweep-*/cell-*_*.out"))
    assert len(cell_logs) == 2  # one array task (job) per cell
    second = subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert "2 cells, 2 done, 0 to run" in second.stdout and "submitting" not in second.stdout
