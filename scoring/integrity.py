"""The exploit classes of shared/INTEGRITY.md, each with its defence and the adversarial evidence for it.

`python -m scoring.integrity` prints docs/integrity.md; tests/scoring/test_integrity_table.py fails when
the document is stale, when a class has no adversarial solution, or when a named test or solution file
does not exist. Evidence entries are either `path::test_function[case]` (a test in this repository) or
the path of a file declaring EXPECTED: an adversary of the corpus (adversarial/<problem>/, scored on the
CPU by tests/scoring/test_isolation.py) or a known-wrong solution (tests/problems/test_every_problem_cpu.py);
`python -m scoring.corpus` scores all of them on the device at hand and checks each against its EXPECTED.
`where` says where the evidence runs: cpu (CI), gpu (the lent H100/H200, results committed) or both.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Defence:
    class_id: str
    name: str
    defence: str
    code: str  # where the defence lives
    evidence: tuple[str, ...]
    where: str  # "cpu", "gpu" or "cpu+gpu"


CORPUS = "adversarial/fp8_gemm/"  # adversaries with their EXPECTED classification per device

CLASSES: tuple[Defence, ...] = (
    Defence(
        "X30",
        "grader tampering from inside the solution's process",
        "every verdict is made in the judge, a process that never imports solution code: it makes the inputs, "
        "keeps the pristine copies, reads its own snapshot of each output (a copy queued on its stream right "
        "behind its wait on the worker's DONE event, before the call is released), runs verify_call and the fp64 reference, computes the statistics and writes the result; "
        "the worker runs in its own PID, mount and network namespaces and its own session (no signal of its "
        "reaches the judge) with every mount read-only but its scratch and cache and no capabilities. The worker's timer and kernel record remain its own claims, "
        "weighed against the judge's own GPU clock (a shape whose worker reported max(20 us, 1%) less than "
        "the judge's span saw, beyond the calibrated gap, fails; under that, its time is charged up to the "
        "judge's less 12 us: scoring/judge/cross_check.py)",
        "scoring/judge/, scoring/worker/, scoring/sandbox.py, scoring/shared_tensors.py",
        (
            f"{CORPUS}X30_rewrites_the_worker_check.py",
            f"{CORPUS}X30_shortens_the_reported_times.py",
            f"{CORPUS}X30_relays_the_result_channel.py",
            f"{CORPUS}X30_signals_the_judge_through_its_process_group.py",
            f"{CORPUS}X10_finishes_after_done_behind_the_ipc_event.py",
            f"{CORPUS}X30_reports_just_under_the_clocks_limit.py",
            f"{CORPUS}X30_works_after_the_judges_clock_stops.py",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X31",
        "opting out of an audit",
        "a counter audit whose profiler ran but could not follow the "
        "solution's call (more kernels than it takes, ranges dropped) fails the run; 'not verified' is kept for "
        "what the machine cannot do (no counter permission, the CPU profile)",
        "scoring/audit.py (run_audits)",
        (
            "tests/scoring/test_hardware_and_audit.py::test_an_audit_the_solution_made_impossible_fails_x31_and_one"
            "_the_machine_cannot_run_is_not_verified",
        ),
        "cpu",
    ),
    Defence(
        "X32",
        "a worker that will not die or breaks its channel",
        "every wait of the judge on its worker has a deadline and a size bound (scoring/wire.py); a worker "
        "that floods, closes or garbles its channel, or never completes its DONE event, is killed with its "
        "namespace and the shape gets a status; a worker that ends or reports a failed call while the judge "
        "waits on the call's events is that failure (a crash is a runtime error, not a verdict); the scorer stops reading a judge once it said done; claims that "
        "are not well formed are refused: times that are not finite non-negative numbers (NaN and Infinity "
        "arrive as null), lines nested deeper than the parser goes",
        "scoring/wire.py, scoring/judge/messages.py (worker_timing), scoring/isolation.py",
        (
            f"{CORPUS}X32_floods_the_reply_channel.py",
            f"{CORPUS}X32_reports_non_finite_times.py",
            f"{CORPUS}X32_sends_deeply_nested_json.py",
            f"{CORPUS}X32_reports_a_time_too_large_for_a_float.py",
            f"{CORPUS}X32_crashes_the_gpu_after_queued.py",
            "tests/scoring/test_judge_watch.py::test_a_worker_that_reports_a_failure_after_queued_gets_that_failure",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X33",
        "the judge acting on a name the worker made",
        "the judge creates every file it shares in the worker's scratch folder (the one folder the worker can "
        "write) under a random name, with O_CREAT|O_EXCL|O_NOFOLLOW, and moves bytes only by pwrite and pread on "
        "its own descriptor (never a mapping the worker could cut short: a file found short reads as changed); "
        "it reads the output from its own descriptor and refuses a descriptor that names another file (X05); on the "
        "GPU only a reference-counter name of the form torch gives its own files, with an index inside such a "
        "file, reaches torch (which writes there when the judge frees the storage), and the judge never waits "
        "on an event the worker recorded after DONE",
        "scoring/shared_tensors.py (SharedFile, OutputOpener)",
        (
            f"{CORPUS}X33_plants_a_link_in_the_scratch_folder.py",
            f"{CORPUS}X33_names_a_host_file_as_its_mailbox.py",
            f"{CORPUS}X33_names_the_judges_ipc_counter_file.py",
            f"{CORPUS}X33_truncates_the_judges_shared_file.py",
            "tests/scoring/test_trust_boundary.py::test_a_shared_file_the_worker_cuts_short_reads_as_changed_not_as_a_crash",
            "tests/scoring/test_trust_boundary.py::test_the_judge_never_lets_torch_write_a_counter_the_worker_names",
            "tests/scoring/test_trust_boundary.py::test_a_planted_link_or_file_under_the_name_refuses_the_creation",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X01",
        "identity / zeros / constant output",
        "inputs scaled so outputs are O(1); element-wise relative and normwise bounds; every problem must "
        "ship zeros and pass-through solutions that fail",
        "scoring/checking.py, tests/problems",
        (
            "problems/fp8_gemm/solutions/wrong/zeros.py",
            "problems/fp8_gemm/solutions/wrong/passthrough.py",
            "problems/paged_attention/solutions/wrong/uniform_weights.py",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X02",
        "result reuse (caching on id, data_ptr, shape)",
        "fresh inputs made by the judge for every call and written into the shared buffers (the same buffers "
        "every call of a shape: a cache keyed on address or identity returns the previous answer) only after "
        "the worker has queued the call; every call's output verified cheaply in the judge (the problem's "
        "verify_call: Freivalds for the GEMMs, sampled rows otherwise); a random sample of timed calls, drawn "
        "by the judge, and the last one compared with the fp64 reference",
        "scoring/judge/shapes.py (ShapeJudge.check, timed), scoring/judge/clock.py (JudgeClock.hold), "
        "problems/*/problem.py (verify_call), scoring/call_checks.py",
        (f"{CORPUS}X02_cache_keyed_on_the_call.py", f"{CORPUS}X02_cache_that_pins_its_inputs.py"),
        "cpu+gpu",
    ),
    Defence(
        "X03",
        "batch-and-skip",
        "every call verified on fresh inputs (verify_call), correctness calls and "
        "sampled timed calls against the reference, all in the judge",
        "scoring/judge/shapes.py (ShapeJudge.check), problems/*/problem.py (verify_call), scoring/call_checks.py",
        (f"{CORPUS}X03_batch_and_skip.py", f"{CORPUS}X13_skips_work_when_unwatched.py"),
        "cpu+gpu",
    ),
    Defence(
        "X04",
        "input mutation",
        "the worker's buffers are copies the judge writes; after every call the "
        "judge compares them with its private pristine copies",
        "scoring/shared_tensors.py (InputSlots.unchanged), scoring/judge/link.py (WorkerLink.call)",
        (f"{CORPUS}X04_mutates_its_input.py",),
        "cpu+gpu",
    ),
    Defence(
        "X05",
        "lazy output",
        "outputs must be plain dense torch.Tensor of the declared shape, dtype and "
        "device, judged from the descriptor the worker sends (no object crosses the process boundary, only a "
        "buffer the judge maps and copies)",
        "scoring/shared_tensors.py (describe_output, check_descriptor)",
        (f"{CORPUS}X05_returns_a_tensor_subclass.py",),
        "cpu+gpu",
    ),
    Defence(
        "X06",
        "seed prediction",
        "a per-run secret mixed into the public seed, never in the solution's "
        "environment; only the judge reads it (the worker's task holds no seed), and the judge removes its task "
        "file before its worker starts; logged for replay",
        "scoring/seeds.py, scoring/judge/process.py",
        (
            f"{CORPUS}X06_predicts_the_inputs_from_the_seed.py",
            "tests/scoring/test_isolation.py::test_the_seed_predicting_adversary_passes_when_the_seed_leaks",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X10",
        "side stream",
        "the worker's timed stream waits on the judge's GO event, queued after the "
        "judge's gate, the refill of the inputs and the L2 flush: work any stream of the worker starts before "
        "the call is queued sees the previous call's inputs; after the end event, a device-wide synchronise "
        "measures work that outlived it, refused above the machine's calibrated idle tail (a worker-side "
        "measure; the judge records how long after DONE its own stream ran); CUPTI's kernel time against "
        "the event time on the calls whose kernel activity is recorded (a random 20%), each record first cut "
        "to what is physically possible (no start before its launch call; on the timed stream, no end after "
        "the end event or the grader's next kernel there; other streams never cut), since CUDA-graph replays "
        "produced records ending 10-48 ms late (results/kernelbench/diag/)",
        "scoring/judge/clock.py, scoring/worker/timer.py, scoring/timing.py (outlived_detail), "
        "scoring/kernel_record.py (outside_timed_interval, RecordBounds)",
        (
            f"{CORPUS}X10_side_stream.py",
            f"{CORPUS}X10_warms_the_weights_during_the_launch_pad.py",
            f"{CORPUS}X10_computes_between_the_refill_and_go.py",
            "tests/scoring/test_watch.py::test_kernel_time_beyond_the_timed_interval_is_x10_and_small_excess_is_not",
            "tests/scoring/test_watch.py::test_a_corrupt_record_is_cut_to_what_is_physically_possible",
            "tests/scoring/test_watch.py::test_work_on_another_stream_is_never_cut_by_a_later_kernel_there",
            "tests/scoring/test_gpu.py::test_work_hidden_on_a_side_stream_is_refused",
            "tests/scoring/test_timing.py::test_work_that_outlives_the_timed_stream_is_refused",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X11",
        "timer tampering",
        "the verdicts and the statistics are the judge's; the times themselves "
        "are the worker's CUDA events, Python the solution could rewrite (X30's residual): true callables are "
        "captured before the solution is imported and compared by identity after import, prepare and every "
        "call, which catches the plain patches; the scorer's pipe is the judge's; the worker's Python starts "
        "without the user site folder, so nothing a solution left in its compile cache runs before the snapshot",
        "scoring/guard.py (TamperSnapshot), scoring/worker/server.py, scoring/sandbox.py (worker_interpreter)",
        (f"{CORPUS}X11_patches_the_timer_at_import.py", f"{CORPUS}X11_plants_a_startup_hook_in_its_compile_cache.py"),
        "cpu+gpu",
    ),
    Defence(
        "X12",
        "L2 residency",
        "L2 flushed (2x its size) and persisting lines reset before every timed call; "
        "a persisting-L2 set-aside or persisting access-policy window set by the solution refuses the shape; "
        "any fraction of peak above 1.0 rejected",
        "scoring/timing.py, scoring/l2_residency.py, scoring/result.py (add_roofline)",
        (
            f"{CORPUS}X12_persisting_l2_window.py",
            "tests/scoring/test_gpu.py::test_persisting_l2_asked_for_by_the_solution_is_refused",
            "tests/scoring/test_l2_residency.py::test_a_raised_set_aside_is_x12",
            "tests/scoring/test_roofline_and_result.py::test_a_fraction_above_one_is_rejected_not_scored",
            "tests/scoring/test_gpu.py::test_a_fraction_above_the_peak_is_rejected_on_the_gpu",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X13",
        "warm-up / phase detection",
        "one call path for checked, warm-up, timed and audited calls: no "
        "dispatch mode, flag, argv, environment or mapped library differs; the forbidden operators refused for "
        "the whole process; every call verified and the names of its kernels recorded; which calls meet the "
        "reference and which get kernel activity drawn from the secret seed; the counter audit profiles timed "
        "calls inside the scoring worker, drawn by a secret reservoir that makes every timed call equally likely "
        "to be the one judged however many there are, and fails when that call launched other kernels than the "
        "timed calls it stands for (profiled_call_representative; residuals below)",
        "scoring/worker/server.py (one call path), scoring/judge/shapes.py (the judge's draws), "
        "scoring/guard.py, scoring/audit.py",
        (
            f"{CORPUS}X13_honest_only_while_warming_up.py",
            f"{CORPUS}X13_hides_scaled_mm_from_the_watched_calls.py",
            f"{CORPUS}X13_watch_aware_vendor_call.py",
            f"{CORPUS}X13_swallows_the_refusal.py",
            f"{CORPUS}X13_skips_work_when_unwatched.py",
            f"{CORPUS}X13_reads_the_check_flag_from_the_callers_frame.py",
            f"{CORPUS}X20_fp8_only_when_profiled.py",
            f"{CORPUS}X13_other_kernels_on_the_audited_call.py",
            f"{CORPUS}X20_residual_same_kernel_name_when_audited.py",
            f"{CORPUS}X20_bf16_past_the_first_timed_calls.py",
            "tests/scoring/test_timing.py::test_a_late_switch_is_caught_as_often_as_it_covers_the_timed_calls",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X14",
        "early exit / fake result line",
        "results travel from the judge on a pipe only it holds; "
        "the worker's replies are bounded JSON lines the judge validates; a worker that ends without "
        "reporting, or a malformed message, is classified; the worker classifies a failure but never names a "
        "verdict (a status outside the judge's fixed sets is X14); every field the judge reads from a worker's "
        "message is checked against what it reads it as (MESSAGE_FIELDS)",
        "scoring/isolation.py, scoring/wire.py, scoring/judge/messages.py (CALL_FAILURE_STATUSES, MESSAGE_FIELDS)",
        (
            f"{CORPUS}X14_early_exit_on_decode.py",
            f"{CORPUS}X14_prints_a_fake_result.py",
            f"{CORPUS}X14_forges_the_result_channel.py",
            f"{CORPUS}X14_names_its_own_verdict_on_the_failure_channel.py",
            f"{CORPUS}X14_sends_a_descriptor_that_is_not_an_object.py",
            f"{CORPUS}X14_describes_its_output_with_a_number_for_a_shape.py",
            f"{CORPUS}X14_sends_a_kernel_record_outcome_that_is_not_text.py",
            f"{CORPUS}X14_forges_report_lines_through_its_library_version.py",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X15",
        "global state (TF32, reduced precision)",
        "backend flags snapshotted before import and "
        "compared after every call, and after a call that raised before the worker goes on; the reference "
        "runs in the judge, whose flags the solution cannot reach, at full precision",
        "scoring/guard.py, scoring/worker/server.py (CallServer.recover)",
        (f"{CORPUS}X15_flips_tf32_at_import.py", f"{CORPUS}X15_flips_tf32_then_raises.py"),
        "cpu+gpu",
    ),
    Defence(
        "X20",
        "precision downcast",
        "tolerances that separate precisions where arithmetic can; the tensor "
        "pipe's per-precision counters where it cannot, read by CUPTI's range profiler inside the scoring worker "
        "on a timed call drawn by a secret reservoir over all of them (each equally likely)",
        "scoring/audit.py (tensor_precision, AuditReservoir), scoring/counters.py",
        (
            "problems/fp8_gemm/solutions/wrong/bf16_cast.py",
            f"{CORPUS}X20_fp8_only_when_profiled.py",
            f"{CORPUS}X13_other_kernels_on_the_audited_call.py",
            f"{CORPUS}X20_residual_same_kernel_name_when_audited.py",
            f"{CORPUS}X20_bf16_past_the_first_timed_calls.py",
            "tests/scoring/test_gpu.py::test_bf16_cast_passes_numerically_but_fails_the_audit_where_counters_are_read",
        ),
        "gpu",
    ),
    Defence(
        "X21",
        "vendor library call",
        "the forbidden aten operators refused for the whole worker at the "
        "dispatcher (every call, every spelling, attempts recorded even when caught); syntax-tree audit, in the "
        "judge, of the solution's own file, of the modules of its folder it imports or names as a .py file by a "
        "constant (followed from module to module) and of the files of its folder the worker says it loaded "
        "(matched against the judge's own listing, never resolved); bytecode looked up only in a fresh folder "
        "of the worker's, and a source that names what decides which bytecode runs refused; imports of the "
        "benchmark's own packages refused outside its own solution folders; the name of every "
        "kernel the solution's code launches (import, prepare, every call) from CUPTI's launch callbacks, sent "
        "as names and matched by the judge against one vendor list (cuBLAS/cuBLASLt reached through ctypes "
        "or CuPy included); vendor kernel names in the profiled call; a call that raised is charged with its "
        "attempts and launches before the worker goes on to the next shape. Residual: the refusal and the "
        "recorder are in the worker, where Python can uninstall them; a name assembled at run time escapes "
        "the syntax tree (X30_disarms_the_guard_and_hides_the_name passes in the CPU profile, which has no "
        "kernel record)",
        "scoring/guard.py, scoring/judge/process.py (audit_solution_source), scoring/import_audit.py, "
        "scoring/kernel_record.py, scoring/vendor_kernels.py, scoring/judge/shapes.py, "
        "scoring/audit.py (vendor_kernels)",
        (
            "problems/fp8_gemm/solutions/wrong/scaled_mm_alias.py",
            "problems/fp8_gemm/solutions/wrong/matmul_operator.py",
            "problems/w4a16_gemm/solutions/wrong/dequant_then_mm.py",
            f"{CORPUS}X13_watch_aware_vendor_call.py",
            f"{CORPUS}X13_swallows_the_refusal.py",
            f"{CORPUS}X21_cupy_cublas_without_aten.py",
            f"{CORPUS}X21_cublaslt_through_ctypes.py",
            f"{CORPUS}X21_forbidden_op_then_raises.py",
            f"{CORPUS}X21_cupy_cublas_then_raises.py",
            f"{CORPUS}X30_disarms_the_forbidden_op_guard.py",
            f"{CORPUS}X30_disarms_the_guard_and_hides_the_name.py",
            f"{CORPUS}X21_hides_a_sibling_module_from_the_audit.py",
            f"{CORPUS}X21_runs_a_sibling_through_runpy.py",
            f"{CORPUS}X21_runs_bytecode_not_its_source.py",
            f"{CORPUS}X21_escapes_the_audit_with_a_symlink_loop.py",
            f"{CORPUS}X21_imports_a_namespace_package_sibling.py",
            f"{CORPUS}X21_imports_a_sibling_by_keyword.py",
            f"{CORPUS}X21_runs_a_sibling_through_run_module.py",
            "tests/scoring/test_trust_boundary.py::test_the_house_kernel_named_in_a_string_is_refused_too",
            "tests/scoring/test_trust_boundary.py::test_a_loaded_file_the_worker_names_is_never_opened_unless_a_regular_file_of_the_folder",
            "tests/scoring/test_trust_boundary.py::test_bytecode_shipped_beside_the_source_never_runs",
            "tests/scoring/test_trust_boundary.py::test_a_solution_that_imports_the_house_kernel_is_refused",
            "tests/scoring/test_checking_and_guard.py::test_forbidden_op_is_refused_in_every_spelling_and_every_mode",
            "tests/scoring/test_hardware_and_audit.py::test_vendor_kernels_in_the_profiled_call_fail_x21",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X22",
        "skipped work",
        "dense-equivalent formulas; adversarial routing and lengths; executed tensor FLOPs against the formula (the counter audit)",
        "problems/*/problem.py, scoring/audit.py",
        (
            "problems/paged_attention/solutions/wrong/first_pages_only.py",
            "tests/scoring/test_hardware_and_audit.py::test_bf16_path_is_flagged_x20_and_skipped_work_x22",
        ),
        "cpu+gpu",
    ),
    Defence(
        "X23",
        "hard-coded shapes",
        "held-out shapes never shown to agents and property shapes drawn fresh per "
        "run must pass; the generalisation gap is reported",
        "scoring/spec.py, scoring/result.py (score)",
        ("problems/fp8_gemm/solutions/wrong/hardcoded_shape.py",),
        "cpu+gpu",
    ),
    Defence(
        "X24",
        "algorithm named but skipped",
        "adversarial inputs on which the shortcut fails the tolerance",
        "problems/softmax",
        ("problems/softmax/solutions/wrong/online_softmax_fp32.py",),
        "gpu",
    ),
    Defence(
        "X25",
        "reading the answer",
        "the agent's workspace holds only public files, in a bubblewrap sandbox; "
        "the grader scores a copy of the solution alone against a pristine problem",
        "harnesses/workspace.py, harnesses/sandbox.py",
        (
            "tests/harnesses/test_sandbox.py::test_hostile_agent_cannot_escape",
            "tests/harnesses/test_sandbox.py::test_workspace_holds_only_public_files",
        ),
        "cpu",
    ),
)


CORPUS_SECTION = (
    "## Running the corpus",
    "",
    (
        "`python -m scoring.corpus` scores every adversary under `adversarial/<problem>/`, every problem's known-wrong "
        "solutions (`problems/*/solutions/wrong/`) and every house kernel, each through `scoring.run` (exactly as "
        "`python -m scoring.run` scores it, with reduced timing), and checks each outcome against the case's "
        "`EXPECTED` for the device at hand: the system status, the per-shape statuses it declares and the text its "
        "detail must contain. A house kernel must pass every shape with no failed audit. Per-case results and one "
        "summary (`ceiling.corpus/1`, docs/results.md: hardware, versions, commit, command, expected against "
        "observed per case) go to `<out>/<hardware>/`; the exit status is 1 on any mismatch or case that could not "
        "run."
    ),
    "",
    "```",
    "python -m scoring.corpus jobs=6                        # on the GPU: cases that only need classifying, 6 at once",
    "python -m scoring.corpus device=cpu only=X04_,house    # a subset, in the CPU profile",
    "python -m scoring.corpus help                          # every key with its default",
    "```",
    "",
    (
        "With `jobs=N`, house kernels and cases that may pass or end in an integrity verdict (an audit's or a timing "
        "rule's) still run alone on the device. A case whose outcome turns on noise lists the statuses it may get "
        "(`\"status\": [\"passed\", \"integrity\"]`). An adversary declares `EXPECTED = {\"class\": \"X04\", \"cpu\": {...}, \"gpu\": {...}}` "
        "(schema in `scoring/corpus/cases.py`); a device on which the exploit cannot be attempted is "
        "`{\"not_exercised\": \"why\"}`, listed with its reason and never as passed. Helpers beside the adversaries "
        "start with `_`: `_correct.py` is the house kernel on CUDA and an fp32 computation without a GEMM operator "
        "in the CPU profile. The `named` column shows whether the scorer's detail names the adversary's class: a "
        "wrong output is reported with the classes the checker cannot tell apart (`X01/X24`, `X02/X03/X13`)."
    ),
)


TRUST_BOUNDARY_SECTION = (
    "## The trust boundary: why a number on the board can be trusted",
    "",
    (
        "Two processes score a solution. The **judge** (`scoring/judge/`) never imports solution code: it makes "
        "every input with the run's secret seeds, keeps the pristine copies, takes its own snapshot of each output "
        "when the call's DONE event has completed, runs `verify_call` and the fp64 reference, computes the timing "
        "statistics, decides every verdict and reports to the scorer on a pipe only it holds. The **worker** "
        "(`scoring/worker/`) imports the solution and calls it; it holds no reference output, no tolerance and no "
        "pass/fail. It runs in a sandbox (`scoring/sandbox.py`): its own PID, mount and network namespaces, every "
        "mount read-only but its scratch folder and its per-solution compile cache, all capabilities dropped and "
        "no_new_privs set; the sandbox reports what it holds, tested from inside before the solution is imported "
        "(`timer.sandbox` in each result: PID 1, one process visible, repository not writable, CapEff 0, only `lo`; "
        "measured the same on the H100 and on CI's CPU machine)."
    ),
    "",
    (
        "What crosses the line, and nothing else: the judge's input buffers, shared once per shape by CUDA IPC "
        "(GPU) or as files both map (CPU profile) and refilled by the judge before every call; the judge's GO "
        "event and the worker's DONE event (CUDA IPC events); orders (task, prepare, call, 'taken' once the judge has its copy of the output, shape start and end) and "
        "answers as bounded JSON lines (`scoring/wire.py`); the worker's output descriptor (an IPC handle, offset, "
        "shape, strides, dtype: validated before a byte is mapped, never unpickled); the worker's claims (its "
        "CUDA-event times, its CUPTI kernel record, an audited call's counters, a refused operator)."
    ),
    "",
    (
        "What the judge guarantees, whatever Python code the solution runs: the inputs are fresh and the judge's "
        "own; the output judged is the bytes the output held when the judge copied it, on its own stream right "
        "behind its wait on DONE, queued before the call was released (work the worker queues after DONE lands in "
        "the span or misses the copy: `X30_works_after_the_judges_clock_stops.py` read NaN on every shape); the "
        "checks, the reference, the statistics and the result file cannot be reached (tried: "
        "`adversarial/fp8_gemm/X30_rewrites_the_worker_check.py`, which scored 0.854 when the checks lived in the "
        "solution's process, is incorrect on the H100 and on the CPU). What the worker can still do is lie in its "
        "claims: its times, its kernel names, its counters. The judge weighs the times against its own clock "
        "(`scoring/judge/clock.py`): for every call it queues, on its own stream, the gate, the inputs' refill, the "
        "L2 flush, GO and a timing event; once the worker says the call is queued, and before it opens the gate, a "
        "wait on the worker's DONE, a second timing event, its copy of the output and a third. The span between "
        "the first two contains the call, two context switches, and whatever the worker's context ran before the "
        "GPU came back to the judge, work queued after DONE included, and no step of the judge's host. The gap "
        "(span minus the reported time) is calibrated on trusted calls before the solution is imported; a shape "
        "whose median gap, over the calls whose gate held, exceeds it by more than max(20 us, 1% of the call) is "
        "`integrity`; under that limit the shape's time is raised to the judge's own (span less the calibrated "
        "gap) less 12 us, the honest spread (`scoring/judge/cross_check.py`). A call whose gate timed out (a "
        "solution that synchronises inside its call) is timed by the judge's span less the smaller of the held gap "
        "and a gap calibrated, before the import, on trusted calls queued once GO completed on the gate's timeout "
        "(`scoring/judge/cross_check.py` judged_when_the_gate_timed_out); its span holds the host's round trip, "
        "which such a call then pays. Measured on an H100 (results/judge/README.md, 2026-11-27): "
        "once no host step of the judge's was in the span (its wait on DONE queued before the gate opens) and "
        "none of the worker's own GPU work (its persisting-L2 reset after the call; its poisoning of free blocks "
        "between calls, whose fill had waited behind the gate and made a high mode of 58-134 us), every house "
        "shape of the seven problems lay within +-5.1 us of the calibrated gap and no held call over 6.3 us "
        "(16:34, 16:52), an honest fp8 kernel under a low calibration 10.5 us; later, at defaults with the reference lines (551 shapes on two H100s, 19:35-20:07), -4.9..+12.2 us, two shapes of Inductor lines charged 0.8 and 1.0 us; the 0.8x forger and the relay left 151-333 us on fp8's shapes of 0.38 ms and more. Before the "
        "wait was queued ahead, the judge's host reaction to DONE (150-300 us) was in the span, and before the "
        "gate waited 5 ms the host's view was bimodal; the host's view (GO to DONE as polled) is recorded beside "
        "the GPU span."
    ),
    "",
    (
        "Red team, round 1 (an attacker given only these docs and the source, CPU profile, 2026-11-27): five "
        "attacks got a better verdict than they deserved, all now refused and kept in `adversarial/fp8_gemm/`. "
        "The judge created files the worker had planted links for and opened a mailbox path the worker named, as "
        "root outside the sandbox (X33: now random names, O_EXCL|O_NOFOLLOW, the judge's own mappings); NaN times "
        "passed (X32: refused); a deeply nested line crashed the judge into a runtime error (X14: malformed); and "
        "a solution that uninstalled the in-process refusal and replaced the worker's syntax-tree audit and vendor "
        "verdict passed (X21: the audit and the verdict on the kernel names moved to the judge). Left open and "
        "stated: an operator reached through a name assembled at run time, with the refusal uninstalled, passes in "
        "the CPU profile (`X30_disarms_the_guard_and_hides_the_name.py`; on the GPU the judge's reading of the "
        "kernel names catches it unless the recorder is rewritten too); `/dev/shm` is shared with the host and "
        "writable from the sandbox (torch's CUDA IPC reference counters are files there, opened by name by the "
        "other process, so a private one needs a GPU run to prove it keeps IPC working): a solution can leave a "
        "file there for a later run; the worker can tell a correctness call from a timed one (it follows its own "
        "`prepare`), which gains nothing while every call's output is verified."
    ),
    "",
    (
        "Red team, round 2 (a fresh attacker, the same brief, after round 1's fixes): a worker could name its own "
        "verdict on its failure channel (\"failed\" with the status \"passed\": every property shape passed; now "
        "X14), hide a sibling module from the syntax-tree audit by removing it from `sys.modules` (now the judge "
        "follows the solution's imports itself), and kill the judge with a signal to its process group (now "
        "separate sessions). Reasoned from torch's source, not yet run on a GPU: the output descriptor's "
        "reference-counter name and index would have made the judge, as root, write into a /dev/shm file of the "
        "worker's choosing and anywhere relative to its mapping (now refused unless torch-shaped and in bounds; a "
        "torch-shaped name of another process's file is still accepted, a residual), and its IPC event would have "
        "made the judge's snapshot wait for work queued after DONE (now not waited on; "
        "`X10_finishes_after_done_behind_the_ipc_event.py` then passed at half its time on the GPU, k_unaligned_6000 "
        "at 0.86, and is now caught by the judge's GPU clock). Noted, not yet bounded: the worker's disk use in its scratch and "
        "cache, and `/dev/shm`."
    ),
    "",
    (
        "Red team, round 3: six more, all now refused. A sibling run with `runpy.run_path` and bytecode shipped "
        "in `__pycache__` beside an innocent source both passed with a forbidden operator (now: .py files the "
        "source names are audited; the worker reads bytecode only from a fresh folder of its own, and a source that "
        "names `pycache_prefix` or its kind is refused); a `.pth` left in the solution's compile cache (its HOME) "
        "by one run patched the timer before the snapshot of the next and passed (now: the worker's Python starts "
        "with `-s`); a link loop the worker named as a loaded file, a descriptor sent as a list, and input files "
        "truncated under the judge's mapping (SIGBUS) each crashed the judge (now: names matched against the "
        "judge's own listing, every message field checked, files moved by pread/pwrite). Found while fixing "
        "them: an agent's solution could import the house kernel (`from problems.fp8_gemm.solutions.house import "
        "run`), since the repository is readable and on the worker's path; the judge now refuses imports of the "
        "benchmark's own packages by any solution outside the repository's solution folders. Still open: code "
        "loaded by a name computed at run time, by path from the repository, or from a non-.py file is not "
        "audited; an agent's solution is not yet confined to its own folder."
    ),
    "",
    (
        "Red team, round 4: nine more. Three spellings reached a sibling the audit did not follow (a namespace "
        "package, `import_module(name=...)`, `runpy.run_module`) and `pkgutil.resolve_name(\"problems...:run\")` "
        "reached the house kernel: the audit now follows every string shaped like a module name that exists "
        "beside the file, and refuses dotted names of the benchmark's packages. A FIFO the worker named as a "
        "loaded file blocked the judge (now: worker-named files are read only as regular files under the "
        "solution's folder and outside the worker's own folders, never listed or followed); an integer of 400 "
        "digits and a descriptor with a number for a shape crashed the judge (now: numbers must fit a float, "
        "descriptors are checked field by field); a kernel record whose outcome was a number would have crashed "
        "the scorer on the GPU, and a worker's note could have claimed \"passed\" (now: every verdict in the "
        "record is the judge's); a library version with terminal escapes rewrote the printed report (now: one "
        "printable line). Each round has found fewer ways to a better verdict and more ways to crash or mislead; "
        "the loop is not finished: the next round should attack this round's fixes."
    ),
    "",
    (
        "Red team, round 5 (report only, fixed the same day; the files are described here, not kept as corpus "
        "cases): five more spellings reached a sibling (a relative import, a relative name, a Unicode module "
        "name, a bytes path, a package folder that is a link); a deep syntax tree in the solution or a sibling "
        "crashed the judge's audit; a linked folder led the judge to a file the worker wrote; an exception's "
        "message rewrote the printed report. Now: relative and Unicode names followed, bytes paths read, links "
        "followed only inside the folder, the audit walks with a raised recursion limit and refuses what it still "
        "cannot read, no link anywhere on a worker-named path, every printed detail one printable line "
        "(tests/scoring/test_trust_boundary.py). The spellings are a list, which the principle says a defence "
        "must not be: walking the whole solution folder instead needs each solution in a folder of its own "
        "(repository adversaries share one), the next step."
    ),
    "",
    (
        "Red team, round 6 (2026-11-27, against the judged GPU clock; reasoned from the code and the H200 records; "
        "kept in `adversarial/fp8_gemm/`), then measured on an H100 the same day (results/judge/README.md): (1) "
        "`X30_reports_just_under_the_clocks_limit.py` reports the largest time cut the rule allows. Against the "
        "rule of the time (max(150 us, 25% of the claim), a limit that grew with the claim) it passed every fp8 "
        "shape. The judge's span then held its host's reaction to DONE (150-300 us, noisy); the judge now queues "
        "its wait on DONE before it opens the gate, and the worker resets its persisting L2 after its call rather "
        "than inside the span: honest excess fell from up to 308 us to at most 10.5 us on 37 of 41 house shapes "
        "(the other four 17-71 us, in runs of calls 58-95 us high whose source is not found), and the share fell "
        "to 5%. The floor of 150 us then let an attacker hide up to 150 us a call, up to the physical bound on "
        "problems whose calls are under 0.3 ms. The high mode's source, found later that day, was the worker's "
        "own fill of free blocks waiting behind the gate; moved between calls, the floor came down to 20 us and "
        "the share to 1%, and the time under the limit is charged back to the judge's less 12 us, as this "
        "round advised. (2) `X30_works_after_the_judges_clock_stops.py` records DONE early and "
        "computes after the judge's stream resumes: against the judge's copy, now queued right behind its wait "
        "on DONE with no host step, it read NaN on every shape (incorrect; three of four shapes before the "
        "change). (3) `X10_computes_between_the_refill_and_go.py`: passed with an honest excess (0-11 us); "
        "the refill-to-GO time is recorded per call. Found sound: the calibration (before the import, out of the "
        "solution's reach), forging only some calls (the median absorbs them), other DONE and GO games "
        "(self-harm or stale inputs)."
    ),
    "",
    (
        "Red team, round 7 (2026-11-27, against the rule of 16:52: max(20 us, 1%), the charge, timed-out gates "
        "timed by the judge's span; reasoned, not run on a GPU; kept in `adversarial/fp8_gemm/`): "
        "`X30_times_out_every_gate_on_purpose.py` sleeps past the gate's timeout and polls GO before it queues "
        "anything, so that every call's gate times out, and cuts its report to 0.6x. No call is then judged "
        "against the limit and nothing is charged: each scores max(its report, span less the gap calibrated on "
        "held calls). That gap (~290 us on the H100: switch-in ~146 us, switch-out ~150 us) was measured with the "
        "worker's stream blocked on GO; here it submits to an idle GPU, and if its switch-in is cheaper, the span "
        "less 290 us is below the real call and the difference is hidden on every call. Open until measured "
        "(`scripts/lab_judge_switch.py gate=held,timed_out`); the fix it names: calibrate the timed-out regime "
        "before the import too, and judge a shape of timed-out calls by that. Found closed: mixing held and "
        "timed-out calls (the charge compares the median over all calls with the judged median over held ones), "
        "forging within the limit knowing the span exactly (12 us kept at most), tricking the timed-out flag "
        "(the judge's own GO query), moving the span's start, late writes (the copy follows the wait on DONE), "
        "rows left unwritten so that the poisoning misses them (stale rows of other inputs fail verification), "
        "the order of \"taken\" and \"done\", the calibration (before the import). Measured after (sixth "
        "session, H100, 19:31 and 20:10): it loses. The timed-out regime is dearer than the held one (the lab: "
        "364-802 us against 299-304 us; the judge's own calibration of it, polled from 0.3 ms short of the "
        "timeout, 329-340 us against 287-293 us), so the judge subtracts the held gap and the forger pays its "
        "host's poll and launches: it scored 0.113-0.121 against the house kernel's 0.550."
    ),
    "",
    (
        "Red team, round 8 (2026-11-27, against 4bb19ad: the timed-out regime calibrated; one GPU call): "
        "`X30_queues_the_moment_go_completes.py` polls GO tightly and queues the moment it completes, the sharpest "
        "form of round 7's attack; it scored 0.165 (house 0.55). It found that the trusted timed-out calls slept "
        "past the gate's timeout, so every calibrated span held 0.3-0.5 ms of idle GPU and the calibration could "
        "never go below the held gap (668-792 us): they now sleep to 0.3 ms short of the timeout and poll GO "
        "(`scoring/worker/timer.py` calibration_call). Both timed-out forgers now carry `fraction_at_most` in the "
        "corpus: a forger that passes by design must not have gained. Found closed: mixing held and timed-out "
        "calls, saying \"queued\" late, spinning a kernel to look held, splitting the call around GO, "
        "\"queued\" before DONE, the 12 us tolerance (the judged median does not depend on the report), "
        "influencing the calibration (before the import)."
    ),
    "",
)


RESIDUALS_SECTION = (
    "## Residuals: what the defences do not close",
    "",
    (
        "- The worker's claims. Times, kernel names and counters are read in the solution's process (CUDA events "
        "and CUPTI must be), and Python code there can rewrite them: `X30_shortens_the_reported_times.py` and "
        "`X30_relays_the_result_channel.py` are caught by the kernel record's X10 rule and by the judge's GPU "
        "clock, except where the time they take off stays under its limit (max(20 us, 1% of the call), above), "
        "and there the shape's time is charged back to the judge's own less 12 us: what a forger keeps is at most "
        "12 us a call (a third of fp8's 34 us decode_m16, 2% of calls over 0.6 ms); "
        "`X30_reports_just_under_the_clocks_limit.py` takes the most the limit allows on every shape. A call "
        "whose gate timed out is timed by the span less the smaller of two calibrated gaps; on the H100 the "
        "timed-out regime costs 40-50 us more than the held one, so the two timed-out forgers lose (0.12-0.17 "
        "against 0.55); a GPU whose switch onto an idle context were cheaper would be caught by the calibration "
        "of that regime, and the corpus bounds their scores."
    ),
    (
        "- What the split costs a short call. The judge's flush and gate run in its own CUDA context and the "
        "solution's call in the worker's, so the GPU switches context before every call. On an H100 (2026-11-27, "
        "`scripts/lab_judge_switch.py gate=held,alone`) a memory-bound call of 17-41 us ran 4-5 us longer after "
        "the switch than in one process (read of 24 MB: 20.7-20.9 us against 16.9 us), and neither touching its "
        "pages, nor running its kernel once on a slice, nor flushing the L2 again in the worker's context "
        "brought it back (20.5-21.3 us), and it is not the judge's side: its wait on DONE queued only after the "
        "call, its refill left out, or the worker's context merely existing beside one process's work, changed "
        "nothing. It is the switch itself (2026-11-27, 21:55-22:06): the same work in the worker's process after "
        "its own flush, with no switch between its calls, took what it takes in one process (17.0 us; 16.9 "
        "waiting on an already completed GO), and a second run of the work after the switch was as slow as the "
        "first (copy of 48 MB 40.5 us against 36.8), while a judge whose context ran nothing between calls but "
        "the GO event record (no gate kernel, no flush) cost the worker's next call as much (21.5 us): any turn "
        "of the judge's context on the GPU between two calls does. Two contexts sharing the SMs without a "
        "switch need CUDA MPS (a machine-wide daemon the GPU machines are not to be set up with), and leaving "
        "the flush, refill and gate to the worker's context gives them back to the solution. The house "
        "kernels, the design before the split against this one in one "
        "call: moe, kda, softmax and topk within 0.6%, paged attention -1.0%, w4a16 -1.2%, fp8 -2.5% (its decode "
        "shapes of 24-35 us +7-9%, 1.7-2.9 us a call); shapes over 100 us +0.1-1.3% "
        "(results/judge/README.md, sixth session). It is the price of a verdict made outside the solution's "
        "process, paid alike by every solution; it falls on the shortest shapes."
    ),
    (
        "- The grader's own state in the worker. Solution code runs in the worker's Python interpreter, which holds "
        "what the worker knows about the current call: whether it is profiled for the counter audit, and whether "
        "its kernel activity is recorded (which calls meet the reference is decided in the judge, after the call). "
        "Code that walks the worker's frames "
        "(`sys._getframe`, `sys._current_frames`) or objects (`gc`) can read it: "
        "`adversarial/fp8_gemm/X13_other_kernels_on_the_audited_call.py` finds the profiled call this way and runs "
        "the fp8 kernel there only; it is caught because the profiled call must launch the kernels the timed calls "
        "launched (profiled_call_representative). "
        "`adversarial/fp8_gemm/X20_residual_same_kernel_name_when_audited.py` gives its bf16 kernel the fp8 "
        "kernel's name and passes, as expected: launches are compared by name (and by executable graph), so one "
        "kernel that branches on an argument, or two kernels with one name, look alike. Every call's output is "
        "verified and every launch named, so reading the state buys nothing against X02/X03/X13/X21; it does "
        "against the audit of one call (X20, X22), whose counters cannot be read on every call. Such code is "
        "written against the grader's internals and is plain to a reviewer of the solution."
    ),
    (
        "- Chance in the audited call. One call's counters stand for the shape's timed calls, and the call is "
        "drawn: a reservoir over the timed calls (scoring/audit.py, AuditReservoir) makes each of the n calls the "
        "judged one with probability 1/n, whatever the solution's pace, so a solution that runs another precision "
        "on k of them escapes with probability 1 - k/n per run (and must switch on more than half to move the "
        "median). `adversarial/fp8_gemm/X20_bf16_past_the_first_timed_calls.py` counts its calls and switches after "
        "the first five timed ones: an index drawn before timing, among the calls a slow warm-up promised, never "
        "reached it; the corpus scores it with a recorded secret whose draws do. Repeated runs of a sweep multiply "
        "the escapes away; one run does not."
    ),
    (
        "- Timing probes. A solution can time itself: kernel activity on a call costs about 1 us of device time "
        "per kernel, and a call under the counter audit is replayed pass by pass; both are visible to a solution "
        "that measures its own kernels with events. A solution that behaves differently on the calls it finds "
        "slower is still verified and named on every call."
    ),
    (
        "- The window between the refill and GO. The judge's gate (its own stream, up to 5 ms) now holds the "
        "refill of the inputs and the L2 flush until the worker's call is queued, so the inputs exist, and the L2 "
        "is clean, only after the worker has queued its call; work the worker queued earlier on another stream "
        "can still start once the refill lands and before GO, if the GPU switches contexts there "
        "(`X10_computes_between_the_refill_and_go.py`, reasoned). The judge records the refill-to-GO time per "
        "call (`judge_clock.refill_flush_us_median`), which such work lengthens; not yet judged."
    ),
)


def markdown() -> str:
    rows = [
        "# Integrity: each exploit class, its defence and its adversarial evidence",
        "",
        (
            "Generated by `python -m scoring.integrity` from `scoring/integrity.py`; a test keeps it true. "
            "Classes are those of shared/INTEGRITY.md."
        ),
        "",
        *CORPUS_SECTION,
        "",
        "## Classes",
        "",
        "| class | exploit | defence | code | adversarial evidence | runs on |",
        "|---|---|---|---|---|---|",
    ]
    for d in CLASSES:
        evidence = "<br>".join(f"`{e}`" for e in d.evidence)
        rows.append(f"| {d.class_id} | {d.name} | {d.defence} | {d.code} | {evidence} | {d.where} |")
    rows += ["", *RESIDUALS_SECTION]
    rows[4:4] = [*TRUST_BOUNDARY_SECTION]
    return "\n".join(rows) + "\n"


def main(argv: list[str]) -> int:
    """`python -m scoring.integrity > docs/integrity.md`; it takes no options (help, -h or --help says so)."""
    from scoring.options import wants_help

    if wants_help(argv):
        print(
            "usage: python -m scoring.integrity > docs/integrity.md\n\nPrints docs/integrity.md (every exploit "
            "class, its defence and its evidence) from scoring/integrity.py; takes no options."
        )
        return 0
    if argv:
        print(
            f"error: {argv[0]}: python -m scoring.integrity takes no arguments (python -m scoring.integrity help)",
            file=sys.stderr,
        )
        return 2
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
