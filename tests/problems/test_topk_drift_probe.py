"""The top-k drift probe's summary (problems/topk/lab/drift_probe.py): its modes need a GPU, the arithmetic
that turns their rows into the printed spreads does not."""

from pathlib import Path

import pytest

from scoring.problem import import_file

PROBE = Path(__file__).resolve().parents[2] / "problems" / "topk" / "lab" / "drift_probe.py"


@pytest.fixture(scope="module")
def probe():
    return import_file(PROBE, "topk_drift_probe")


def rows(shape, medians_by_pass):
    return [{"shape": shape, "pass": p, "placement": i, "median_ms": m}
            for p, medians in enumerate(medians_by_pass) for i, m in enumerate(medians)]


def test_placement_that_matters_shows_as_a_spread_well_above_the_passes_disagreement(probe):
    summary = probe.summarise(rows("a", [[1.00, 1.01, 1.02], [1.00, 1.01, 1.02]])
                              + rows("b", [[1.00, 1.00, 1.00], [1.01, 0.99, 1.00]]))
    assert summary["a"]["placement_spread"] == pytest.approx(0.02)
    assert summary["a"]["pass_disagreement_median"] == pytest.approx(0.0)
    # Noise alone: the passes disagree by 1% and the places' means spread by no more than that.
    assert summary["b"]["pass_disagreement_median"] == pytest.approx(0.01)
    assert summary["b"]["placement_spread"] == pytest.approx(1.005 / 0.995 - 1)


def test_a_bad_mode_or_argument_is_refused(probe):
    assert probe.main(["nonsense"]) == 2
    with pytest.raises(SystemExit, match="key=value"):
        probe.arguments(["calls"])
