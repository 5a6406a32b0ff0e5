"""benchmarks/motion.py's arms: without --arm the default robot, with ``--arm all`` every preset, each with its own
robot config (its own speeds and IK, so its own bound), and a preset that is not a whole robot config named with
the reason instead of measured."""

from __future__ import annotations

from benchmark_scripts import load_benchmark
from hanoibot.arm import PRESET_NAMES
from hanoibot.config import load_config


def test_the_benchmark_measures_each_preset_with_its_own_config() -> None:
    bench = load_benchmark("motion")
    ((label, config, why_not),) = bench.arm_configs([])
    assert "robot.toml" in label and config == load_config() and why_not == ""
    arms = {label.removeprefix("preset "): (config, why_not) for label, config, why_not in bench.arm_configs(["all"])}
    assert list(arms) == list(PRESET_NAMES)
    assert arms["mearm"][0] is None and "[motion] is missing" in arms["mearm"][1]
    so101, _ = arms["so101"]
    assert so101 is not None and so101.channel_names()[0] == "shoulder_pan" and so101.channels == 6
    bound_s = {
        name: bench.lower_bound_s(config, bench.planned_segments(config, 1))
        for name, (config, _) in arms.items()
        if config is not None
    }
    assert len(set(bound_s.values())) == len(bound_s), "each arm's bound is its own"
