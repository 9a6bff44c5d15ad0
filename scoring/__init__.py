"""Ceiling's scorer: `python -m scoring.run problem=NAME` scores one solution and its reference lines.

How a run flows (each arrow a process boundary where one is crossed):
  run.py (the CLI; config.py, options.py) -> isolation.py + standby.py (child processes, deadlines, statuses)
  -> judge/ (trusted: never imports solution code; process.py, shapes.py the checks and timing verdicts,
     clock.py its gate, L2 flush and GPU clock, cross_check.py the clock's verdict, link.py, messages.py)
  -> sandbox.py -> worker/ (untrusted: imports the solution; server.py, timer.py, failures.py)
  across shared_tensors.py (CUDA IPC or files) and wire.py (bounded JSON lines).
Problems: spec.py (problem.toml) and problem.py (problem.py's functions); checking.py (tolerances), call_checks.py (the shared helpers of problems' verify_call),
seeds.py (public seed x per-run secret), roofline.py and hardware.py (peaks.toml) for the fraction.
Audits and records: import_audit.py (the solution's source, in the judge), guard.py (forbidden operators in
the worker), kernel_record.py (CUPTI, the worker's claim), vendor_kernels.py, audit.py + counters.py
(hardware-counter audits), l2_residency.py, launch_gate.py, gpu_state.py, tensor_ops.py (a measuring command:
ncu_profile.py and audit_target.py run one call under Nsight Compute).
Results: result.py (scores, the file written once), result_model.py (the format as typed models, one line of
documentation a field; dataclass_schema.py turns them into schema/'s JSON Schema and docs/results.md's field
table), result_schema.py (a file against that schema), result_fields.py (types, read from the models) +
result_checks.py (values against each other) + verify.py (checking a file before it is shown), failure_class.py,
report.py (printed tables), line_cache.py (reference lines reused).
integrity.py maps shared INTEGRITY.md's exploit classes to defences (docs/integrity.md); corpus/ runs the
adversaries and is never imported by the engine. docs/problems.md and docs/results.md are the guides.
"""
