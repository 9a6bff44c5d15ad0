"""Shared fixtures for the site tests: a fixture results tree and one site built from it."""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.site.fixtures import good_tree  # noqa: E402


@pytest.fixture(scope="session")
def results_tree(tmp_path_factory) -> Path:
    return good_tree(tmp_path_factory.mktemp("site") / "results")


@pytest.fixture(scope="session")
def built(results_tree, tmp_path_factory):
    from board import BuildConfig, build

    out = tmp_path_factory.mktemp("site-out") / "site"
    lines: list[str] = []
    report = build(BuildConfig(results=str(results_tree), out=str(out)), log=lines.append)
    return report, out, lines
