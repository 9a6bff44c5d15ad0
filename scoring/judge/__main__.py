import sys

from scoring.judge.process import main

sys.exit(main(sys.argv[1:]))
