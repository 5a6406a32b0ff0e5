"""benchmarks/run.py's own check: the segment clock it rebuilds from what the board's queue accepted (blends, late
arrivals and the switch-on after CONFIG included) puts every DONE at the controller step the board really sent it
at. The benchmark asserts that itself; this runs it on a small tower so a change of the board or the link that
breaks the rebuild shows here, not first when someone records figures."""

from __future__ import annotations

from benchmark_scripts import load_benchmark


def test_the_run_benchmark_rebuilds_the_boards_segment_clock_on_a_small_tower() -> None:
    bench = load_benchmark("run")
    cpu = bench.SimCpu()
    cpu.wrap("step")
    figures = bench.bench(3, cpu)
    assert figures["moves"] == 7 and figures["segments"] > 7 * 8
    assert 0 <= figures["starved_fraction"] < 1 and figures["motion_s"] > 0
