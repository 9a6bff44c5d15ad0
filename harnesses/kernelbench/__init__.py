"""Re-scoring kernelbench.com's published agent solutions under Ceiling's rubric (docs/kernelbench.md).

Their files stay theirs: `python -m harnesses.import_kernelbench` reads them from a clone the user points
to and writes solution folders outside the committed tree; only our results and the provenance of each
file (repository, commit, path, sha256) are committed.
"""
