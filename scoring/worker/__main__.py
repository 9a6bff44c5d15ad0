import sys

from scoring.worker.server import main

sys.exit(main(sys.argv[1:]))
