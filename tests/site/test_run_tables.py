"""A run page's shape table shows each timed shape's SM clock (scoring/gpu_state.py), or a dash that says why;
its audit table says which timed call the counter audit judged."""

import re

from board.run_tables import audit_table, shape_table


def cells(html: str) -> list[str]:
    return re.findall(r"<td[^>]*>.*?</td>", html)


def shape(name: str, **fields) -> dict:
    return {"name": name, "shape_set": "visible", "params": {"n": 1}, "status": "passed",
            "timing": {"median_ms": 0.1, "p10_ms": 0.09, "p90_ms": 0.11, "rse": 0.004, "count": 50}, **fields}


def clock_cell(row_html: str) -> str:
    return cells(row_html)[6]  # shape, set, params, status, median, spread, then the clock


def test_the_clock_shows_its_range_and_its_reasons_and_sorts_by_its_median():
    state = {"samples": 12, "sm_clock_mhz": {"min": 1950, "median": 1965.0, "max": 1980},
             "temperature_c": {"min": 51, "median": 52, "max": 54}, "clock_event_reasons": ["sw_power_cap"]}
    html = str(shape_table({"shapes": [shape("a", gpu_state=state)]}))
    assert "SM clock MHz</th>" in html
    cell = clock_cell(html)
    assert ">1950–1980</td>" in cell and 'data-value="1965.0"' in cell
    assert "median 1965 MHz over 12 readings; GPU 51–54 C; clock event reasons: sw_power_cap" in cell


def test_a_steady_clock_is_one_number_and_a_missing_reading_a_dash_with_its_reason():
    steady = {"samples": 3, "sm_clock_mhz": {"min": 1980, "median": 1980, "max": 1980},
              "temperature_c": {"min": 44, "median": 44, "max": 45}, "clock_event_reasons": []}
    html = str(shape_table({"shapes": [shape("a", gpu_state=steady),
                                       shape("b", gpu_state={"why_not": "NVML unavailable (<no library>)"}),
                                       shape("c")]}))
    rows = html.split("<tr>")[2:]  # after the header's row
    assert ">1980</td>" in clock_cell(rows[0]) and "clock event reasons: none" in clock_cell(rows[0])
    assert clock_cell(rows[1]) == '<td class="num" title="NVML unavailable (&lt;no library&gt;)">—</td>'
    assert clock_cell(rows[2]) == '<td class="num">—</td>'  # a result from before gpu_state


def test_the_audit_table_names_the_judged_call_among_the_timed_calls_and_older_results_as_they_say():
    audits = [{"id": "tensor_precision", "classes": ["X20", "X22"], "expect": "fp8", "shape": "square_8192",
               "timed_call_index": 15, "timed_calls": 19, "calls_profiled": 3, "outcome": "failed (X20: bf16)"},
              {"id": "tensor_precision", "shape": "decode_m16", "timed_call_index": 0, "outcome": "passed"},
              {"id": "vendor_kernels", "shape": "decode_m16", "outcome": "passed"},
              {"id": "tensor_precision", "outcome": "not verified (CPU profile: no GPU counters to read)"}]
    html = str(audit_table(audits))
    assert "shape, call</th>" in html
    rows = html.split("<tr>")[2:]
    assert cells(rows[0])[3] == "<td>square_8192, timed call 16 of 19 (3 profiled)</td>"
    assert cells(rows[1])[3] == "<td>decode_m16, timed call 1</td>"  # a result from before the reservoir
    assert cells(rows[2])[3] == "<td>decode_m16</td>" and cells(rows[3])[3] == "<td></td>"
