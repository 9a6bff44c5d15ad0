"""The trusted side of scoring: a process that never imports solution code.

`python -m scoring.judge RESULT_FD` (started by scoring/isolation.py) makes every input, keeps the pristine
copies, runs the reference and the checks, computes the statistics and sends the verdicts; its worker
(scoring/worker/) runs the solution in a sandbox (scoring/sandbox.py). What crosses between them is in
docs/integrity.md.
"""
