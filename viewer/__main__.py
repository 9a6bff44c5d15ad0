"""`python -m viewer`: see viewer/cli.py."""

import sys

from .cli import main

sys.exit(main())
