"""``hanoibot calibrate`` from the bus: an SO-101 on ``feetech://`` whose servos are mounted with offsets the config
does not know (and the elbow turned round), moved by hand to each peg while its torque is off.

The adapter is simulated (:class:`hanoibot.sim.adapter.SimAdapter`, a real pty on the wall clock, the firmware's
own controller running in the ``hanoibot calibrate`` process): the board's time never stops while the person
thinks. The person is this test: at each prompt it turns the limp horns (``SimBusServo.move_by_hand``) to where the
TRUE arm must stand for that pose (the simulated world's own config, by its kinematics), then presses s. Oracles:
the true config and the world: the calibrated config must put the real arm's grip point on each peg, and the world
logs nothing hit when the calibrated arm then goes above each peg by itself.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hanoibot.config import load_config
from hanoibot.motion.kinematics import Point
from hanoibot.motion.robot import RobotConfig
from hanoibot.sim.adapter import SimAdapter
from hanoibot.sim.world import make_world
from human_pace import PacedCommand
from world_events import bad_events

PRESET = Path(__file__).resolve().parents[2] / "host" / "hanoibot" / "arm" / "presets" / "so101.toml"
#: The bus's scale: one servo turn is 2000 µs of pulse (hanoifw.busservos), written out here.
BUS_US_PER_DEG = 2000 / 360
#: How the real arm's servos sit (offset in degrees, direction): none as the preset says.
TRUTH = {
    "shoulder_pan": (6.0, 1),
    "shoulder_lift": (-8.0, 1),
    "elbow_flex": (4.0, -1),  # mounted the other way round
    "wrist_flex": (3.0, 1),
    "wrist_roll": (-5.0, 1),
}
#: A hand puts a joint only this close (µs, alternately more and less): 0.5 deg.
HAND_US = 3
#: How long a hand rests a joint at each end of its travel while sweeping it, in s.
END_S = 0.5
#: Where the calibrated arm must put its grip point, in mm of the peg: the hand's 0.5 deg on each joint is up to
#: 1.6 mm at the pegs' 180 mm (an exact hand gives 0.4 mm: whole-µs readings); the disk hole leaves 3 mm a side.
ON_PEG_MM = 2.5


def bus_preset() -> Any:
    """The SO-101 preset with a bus servo's tolerances: its deadband is about a step (0.5 µs of pulse), not a PWM
    servo's 5 µs (at the bus's 5.6 µs a degree the preset's PWM figures would not fit the disk hole's play)."""
    document: Any = tomlkit.parse(PRESET.read_text())
    document["tolerances"]["servo_deadband_us"] = 1.0
    document["tolerances"]["servo_backlash_us"] = 1.0
    return document


def true_config(folder: Path) -> RobotConfig:
    """The preset with the real arm's servo offsets and directions, at the bus's scale: the world's arm."""
    document = bus_preset()
    for name, (offset_deg, direction) in TRUTH.items():
        table = document["servos"][name]
        table["offset_deg"], table["direction"], table["us_per_deg"] = offset_deg, direction, BUS_US_PER_DEG
    document["servos"]["gripper"]["us_per_deg"] = BUS_US_PER_DEG
    path = folder / "truth.toml"
    path.write_text(tomlkit.dumps(document))
    return load_config(path)


def pose_us(config: RobotConfig, peg: int, where: str) -> list[int]:
    """The pulses (µs per channel) that put ``config``'s arm at peg number ``peg``: its foot (the grip height of a
    bottom disk) or its tip, the jaws pointing down."""
    spot = config.board.pegs[peg]
    z_mm = config.board.grip_z_mm(0) if where == "foot" else spot.height_mm
    return list(config.pulses_at(Point(spot.x_mm, spot.y_mm, z_mm), config.gripper.open_us))


class Hand:
    """The person's hand on the limp arm behind ``adapter``."""

    def __init__(self, adapter: SimAdapter) -> None:
        self.adapter = adapter

    def put(self, pulses_us: list[int], peg: int) -> None:
        """Turn every arm horn to ``pulses_us`` give or take :data:`HAND_US` (more at one peg, less at the next,
        and the other way round on the next joint; the gripper left as it is)."""
        with self.adapter.lock:
            for channel, servo in enumerate(self.adapter.bus.servos[:-1]):
                servo.move_by_hand(pulses_us[channel] + HAND_US * (-1) ** (peg + channel))

    def sweep(self, channel: int, low_us: float, high_us: float, *, steps: int = 20, pause_s: float = 0.03) -> None:
        """Move one limp joint slowly from ``low_us`` to ``high_us`` (a moment at each end, where it stops) and back
        to the middle."""
        servo = self.adapter.bus.servos[channel]
        for k in range(steps + 1):
            with self.adapter.lock:
                servo.move_by_hand(low_us + (high_us - low_us) * k / steps)
            time.sleep(END_S if k in (0, steps) else pause_s)
        with self.adapter.lock:
            servo.move_by_hand((low_us + high_us) / 2)


def sweep_ends_us(config: RobotConfig, channel: int) -> tuple[float, float]:
    """The pulses at the ends of the real joint's travel (its URDF limits), lowest first."""
    servo = config.servos[channel]
    ends = sorted((servo.pulse_us(servo.min_deg), servo.pulse_us(servo.max_deg)))
    return ends[0], ends[1]


def play_a_person(command: PacedCommand, hand: Hand, truth: RobotConfig, think_s: float, pegs: range) -> None:
    """Answer every prompt of a bus calibration of ``pegs`` as a person at the arm, ``think_s`` s per answer."""
    command.read_until("its servos go limp when you press s")
    command.type_after(think_s, "s")
    command.read_until("the arm is limp")
    for peg in pegs:
        letter = "ABC"[peg]
        command.read_until(f"around the foot of peg {letter}")
        hand.put(pose_us(truth, peg, "foot"), peg)
        command.type_after(think_s, "s")
        command.read_until(f"fingertips are level with the top of peg {letter}")
        hand.put(pose_us(truth, peg, "tip"), peg)
        command.type_after(think_s, "s")
        command.read_until(f"peg {letter}: saved to")


def calibrated_grip_error_mm(calibrated: RobotConfig, truth: RobotConfig, peg: int) -> float:
    """How far from the foot of peg number ``peg`` the real arm's grip point lands (mm, across the board) when the
    calibrated config sends it there."""
    pulses = pose_us(calibrated, peg, "foot")
    point = truth.grip_point(pulses)
    spot = truth.board.pegs[peg]
    return float(((point.x_mm - spot.x_mm) ** 2 + (point.y_mm - spot.y_mm) ** 2) ** 0.5)


@pytest.fixture
def arm(tmp_path: Path) -> Any:
    """(true config, adapter, its feetech:// URL, the config hanoibot starts from, the file it writes)."""
    truth = true_config(tmp_path)
    world = make_world(truth, "AAA")
    start = tmp_path / "so101.toml"
    start.write_text(tomlkit.dumps(bus_preset()))
    with SimAdapter(world, ids=(1, 2, 3, 4, 5, 6)) as adapter:
        yield truth, adapter, f"feetech://{adapter.device}?ids=1,2,3,4,5,6", start, tmp_path / "calibrated.toml"


def calibrate_by_hand(arm: Any, think_s: float) -> tuple[int | None, str, str]:
    """A whole bus calibration, the person answering after ``think_s`` s each time; (exit code, stdout, stderr)."""
    truth, adapter, url, start, output = arm
    hand = Hand(adapter)
    command = PacedCommand("calibrate", "--port", url, "--config", str(start), "--output", str(output))
    try:
        play_a_person(command, hand, truth, think_s, range(3))
        command.read_until("now the range of motion")
        for channel in range(len(truth.servos)):
            hand.sweep(channel, *sweep_ends_us(truth, channel))
        command.type_after(think_s, "s")
        command.read_until("above peg C")
        return command.finish()
    finally:
        command.close()


def check_calibration(arm: Any, code: int | None, out: str, err: str) -> None:
    """The calibrated config puts the real arm on every peg, finds the reversed elbow, and limits each joint to
    what was swept; nothing was hit."""
    truth, adapter, _url, _start, output = arm
    assert code == 0, out + err
    calibrated = load_config(output)
    errors_mm = [calibrated_grip_error_mm(calibrated, truth, peg) for peg in range(3)]
    print("grip point off each peg (mm):", [round(e, 2) for e in errors_mm])
    assert max(errors_mm) <= ON_PEG_MM, (errors_mm, out)
    directions = {servo.name: servo.calibration.direction for servo in calibrated.servos}  # type: ignore[attr-defined]
    assert directions == {name: direction for name, (_, direction) in TRUTH.items()}, out
    assert "elbow_flex: offset" in out and "(it turns the other way round)" in out
    for channel, servo in enumerate(calibrated.servos[:4]):
        low_us, high_us = sweep_ends_us(truth, channel)
        assert abs(servo.min_us - low_us) <= 1 and abs(servo.max_us - high_us) <= 1, (servo, low_us, high_us)
        real = truth.servos[channel]
        assert abs(servo.min_deg - (real.min_deg + 2.0)) <= 0.7, (servo.min_deg, real.min_deg)
        assert abs(servo.max_deg - (real.max_deg - 2.0)) <= 0.7, (servo.max_deg, real.max_deg)
    assert "range of motion swept by hand" in output.read_text(), "the comment says where the limits come from"
    assert bad_events(adapter.events) == [], adapter.events


def test_a_bus_calibration_by_hand_puts_the_arm_on_the_pegs_and_finds_a_reversed_joint(arm: Any) -> None:
    code, out, err = calibrate_by_hand(arm, think_s=0.3)
    check_calibration(arm, code, out, err)


@pytest.mark.slow
def test_a_bus_calibration_by_hand_at_a_persons_pace(arm: Any) -> None:
    """The same with the person taking 6 s for each answer: far past the board's host watchdog and the link's
    silence bound, on a board whose clock never stops."""
    code, out, err = calibrate_by_hand(arm, think_s=6.0)
    check_calibration(arm, code, out, err)


def test_a_bus_calibration_cut_short_keeps_the_pegs_confirmed_and_goes_on(arm: Any) -> None:
    truth, adapter, url, start, output = arm
    argv = ("calibrate", "--port", url, "--config", str(start), "--output", str(output))
    first = PacedCommand(*argv)
    try:
        play_a_person(first, Hand(adapter), truth, 0.2, range(1))
        first.read_until("around the foot of peg B")
        code, out, err = first.finish()  # the person walks away: the input ends
    finally:
        first.close()
    assert code == 1 and "1 peg(s) saved in" in out, out + err
    saved: Any = tomlkit.parse(output.read_text())
    assert saved["servos"]["shoulder_pan"]["us_per_deg"] == pytest.approx(BUS_US_PER_DEG, abs=1e-3)
    again = PacedCommand(*argv)
    try:
        again.read_until("going on with the calibration that stopped at peg B")
        again.read_until("its servos go limp")
        again.type_after(0.2, "s")
        again.read_until("around the foot of peg B")
        code, out, err = again.finish()
    finally:
        again.close()
    assert "around the foot of peg A" not in out, out


def test_bus_on_a_board_without_measured_positions_is_refused_naming_the_port(tmp_path: Path) -> None:
    from cli_runner import hanoibot

    config = tmp_path / "so101.toml"
    config.write_text(PRESET.read_text())
    done = hanoibot("calibrate", "--port", "sim://", "--config", str(config), "--bus", timeout_s=120)
    assert done.returncode == 2 and "--bus: the board on sim:// reports no measured positions" in done.stderr


def test_a_config_the_bus_scale_would_break_is_refused_before_the_arm_goes_limp(arm: Any, tmp_path: Path) -> None:
    """The preset as shipped keeps a PWM servo's 5 µs deadband: at the bus's 5.6 µs a degree its margins no longer
    fit the disk hole, so the calibration says so and never releases the arm."""
    url = arm[2]
    pwm_tolerances = tmp_path / "pwm.toml"
    pwm_tolerances.write_text(PRESET.read_text())
    done = PacedCommand(
        "calibrate", "--port", url, "--config", str(pwm_tolerances), "--output", str(tmp_path / "o.toml")
    )
    try:
        code, out, err = done.finish()
    finally:
        done.close()
    assert (
        code == 2
        and "at the bus servos' 5.56 µs a degree (one turn is 2000 µs) the robot config would be refused" in err
    ), out + err
    assert "[tolerances] cannot be met" in err and "go limp" not in out
