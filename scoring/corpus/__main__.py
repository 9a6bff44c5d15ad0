"""`python -m scoring.corpus`: see runner.py."""

import sys

from scoring.corpus.runner import main

sys.exit(main(sys.argv[1:]))
