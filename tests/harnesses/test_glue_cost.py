"""harnesses/kernelbench/glue_cost.py on the CPU profile: every visible and held-out shape of the two problems
whose adapters add per-call glue is timed and set against its roofline (the numbers are the GPU run's to
give; here only that it runs and records them)."""

import json

from harnesses.kernelbench import glue_cost


def test_the_glue_of_each_adapter_is_timed_per_shape_against_its_roofline(tmp_path, capsys):
    out = tmp_path / "glue.json"
    assert glue_cost.main(["device=cpu", f"out={out}"]) == 0
    record = json.loads(out.read_text())
    assert record["schema"] == "ceiling.kernelbench-glue/1" and record["hardware"]["profile"] == "cpu"
    problems = {row["problem"] for row in record["rows"]}
    assert problems == {"fp8_gemm", "paged_attention"}
    for row in record["rows"]:
        assert row["glue_median_us"] > 0 and row["roofline_us"] > 0 and row["calls"] >= 1
        assert abs(row["share_of_roofline"] - row["glue_median_us"] / row["roofline_us"]) < 1e-9
    assert "share" in capsys.readouterr().out
    assert glue_cost.main(["devices=cpu"]) == 2
