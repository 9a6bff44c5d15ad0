"""Shared paths for the viewer tests; puts the repository root on sys.path so `import viewer`
works however pytest is started."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
