"""The integrity corpus runner, `python -m scoring.corpus`: it scores every adversary, known-wrong solution
and house kernel through the engine and checks each outcome against what the case declares.

It sits beside the engine and uses it (`scoring.run`); the engine never imports it.
cases.py reads the cases and their EXPECTED, judge.py compares a result with them, runner.py scores
them and writes the summary.
"""
