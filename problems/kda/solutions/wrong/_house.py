"""Load the house kernel by path, so known-wrong solutions can reuse (and break) it."""

import importlib.util
from pathlib import Path


def load_house():
    spec = importlib.util.spec_from_file_location("kda_house_for_wrong", Path(__file__).parents[1] / "house.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
