"""The untrusted side of scoring: a process that imports the solution and calls it when the judge says.

`python -m scoring.worker CMD_FD REPLY_FD` (started by the judge, scoring/judge/, inside the sandbox of
scoring/sandbox.py). It holds no reference output, no tolerance and no verdict: it maps the buffers the
judge shares, calls the solution, and reports what it saw (scoring/worker/server.py).
"""
