"""SimBoard: the real firmware core on virtual servos, stepped in control ticks of virtual time."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hanoibot.clock import VirtualClock
from hanoibot.sim.board import SimBoard
from hanoifw import protocol
from hanoifw.rxframe import FrameReader

CONFIG = [*(v for _ in range(5) for v in (900, 2100, 1500, 60000)), 0]  # limits, speed; grip threshold


def frames(board: SimBoard) -> list[tuple[str, int, int, list[str]]]:
    return FrameReader().feed(board.take_output())


class CountingWorld:
    """A stand-in world: records ticks and attachments, a grip sensor reading 37 and a powered servo rail."""

    def __init__(self) -> None:
        self.ticks: list[tuple[float, list[int | None]]] = []
        self.attached: list[object] = []
        self.grip_sensor = self
        self.rail = self
        self.on_event: object = None
        self.max_speed_us_per_s = [100.0, None, None, None, None]

    def read_u16(self) -> int:
        return 37

    def value(self) -> int:
        return 1

    def attach(self, controller: object) -> None:
        self.attached.append(controller)

    def on_tick(self, t_s: float, pulses_us: list[int | None]) -> None:
        self.ticks.append((t_s, pulses_us))


def session_frames(*moves: tuple[int, int, int]) -> bytes:
    """SYNC, CONFIG, then MOVE(cmd_id, duration_ms, channel-0 pulse) frames with consecutive seqs."""
    out = protocol.encode("SYNC", 0, 0, ["t"]) + protocol.encode("CONFIG", 1, 0, CONFIG)
    for seq, (cmd_id, duration_ms, pulse_us) in enumerate(moves, start=2):
        out += protocol.encode("MOVE", seq, 0, [cmd_id, duration_ms, pulse_us, 1500, 1500, 1500, 1500])
    return out


def test_boot_announces_hello_and_ticks_are_every_10_ms() -> None:
    world = CountingWorld()
    board = SimBoard(world=world)  # type: ignore[arg-type]
    board.run_until(1.0)
    assert [kind for kind, *_ in frames(board)] == ["HELLO"]
    assert [round(t_s, 6) for t_s, _ in world.ticks] == [round(0.01 * k, 6) for k in range(101)]
    assert board.clock.now_s() == pytest.approx(1.0)
    assert world.attached == [board.controller]


def test_executed_moves_are_logged_with_their_time_and_the_pose_is_output() -> None:
    board = SimBoard(stagger_ms=0)
    board.feed(session_frames((1, 50, 1000), (2, 50, 2000)))
    board.run_until(0.2)
    assert board.executed_cmd_ids() == [1, 2]
    done = [event["t_s"] for event in board.events if event["event"] == "executed"]
    assert done == pytest.approx([0.05, 0.1], abs=0.011)
    assert board.servos.pulses_us() == [2000, 1500, 1500, 1500, 1500]


def test_a_refused_move_is_an_error_event() -> None:
    board = SimBoard()
    board.feed(session_frames((1, 50, 2400)))
    board.run_until(0.05)
    (error,) = [event for event in board.events if event["event"] == "error"]
    assert error["code"] == protocol.E_LIMIT
    assert board.executed_cmd_ids() == []


def test_step_answers_input_without_advancing_time() -> None:
    board = SimBoard(clock=VirtualClock(5.0))
    board.run_until(5.0)
    frames(board)
    board.step()
    assert board.take_output() == b""  # nothing fed, nothing said
    board.feed(protocol.encode("STATUS", 0, 0))
    board.step()
    ((kind, _seq, _ack, fields),) = frames(board)
    assert (kind, fields[0]) == ("STATUS", board.boot_id)
    assert board.clock.now_s() == 5.0


def test_reset_reboots_with_a_new_boot_id_and_limp_servos() -> None:
    world = CountingWorld()
    board = SimBoard(world=world, stagger_ms=0)  # type: ignore[arg-type]
    board.feed(session_frames())
    board.run_until(0.02)
    old_boot_id = board.boot_id
    assert board.servos.pulses_us() == [1500] * 5
    board.reset("watchdog")
    board.run_until(0.05)
    assert board.boot_id != old_boot_id
    assert board.servos.pulses_us() == [None] * 5
    hello = [fields for kind, _s, _a, fields in frames(board) if kind == "HELLO"]
    assert hello[-1][2:4] == [board.boot_id, "watchdog"]
    assert board.events[-1]["event"] == "reset"
    assert len(world.attached) == 2
    board.feed(protocol.encode("STATUS", 0, 0))
    board.step()
    status = [fields for kind, _s, _a, fields in frames(board) if kind == "STATUS"][-1]
    assert status[1] == "UNCONFIGURED"
    assert status[6:9] == ["unknown", "-1", "on"]  # the rail sense reaches the new controller; an undriven gripper
    assert board.controller.grip_sensor is world  # draws no current: its sensor (here too) gives no verdict


def test_boot_ids_repeat_for_a_seed_order_but_differ_between_boards() -> None:
    first, second = SimBoard(seed=3), SimBoard(seed=3)
    assert first.boot_id != second.boot_id


def _first_boot_ids_in_a_new_process(seed: int | None) -> list[str]:
    """Boot ids of the first board a fresh Python process makes: at power-on and after two resets."""
    code = (
        "from hanoibot.sim.board import SimBoard\n"
        f"board = SimBoard(seed={seed!r})\n"
        "ids = [board.boot_id]\n"
        "for _ in range(2):\n"
        "    board.reset()\n"
        "    ids.append(board.boot_id)\n"
        "print(' '.join(ids))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.split()


def test_without_a_seed_every_process_boots_with_another_id() -> None:
    """Two emulators (or a restarted one) must never look like the same boot to resume."""
    first, second = _first_boot_ids_in_a_new_process(None), _first_boot_ids_in_a_new_process(None)
    assert len(set(first + second)) == 6


def test_a_seed_repeats_the_ids_across_processes_and_a_reset_still_changes_it() -> None:
    first, second = _first_boot_ids_in_a_new_process(7), _first_boot_ids_in_a_new_process(7)
    assert first == second
    assert len(set(first)) == 3


def test_world_events_join_the_board_log_and_servo_speeds_are_limited() -> None:
    world = CountingWorld()
    board = SimBoard(world=world, max_speed_us_per_s=world.max_speed_us_per_s, stagger_ms=0)  # type: ignore[arg-type]
    assert callable(world.on_event)
    world.on_event({"t_s": 1.25, "event": "pick", "disk": 1, "peg": "A"})  # type: ignore[operator]
    assert board.events[-1] == {"t_s": 1.25, "source": "world", "event": "pick", "disk": 1, "peg": "A"}
    board.feed(session_frames((1, 20, 1000)))
    board.run_until(1.0)
    assert board.servos.pulses_us()[0] == 1000
    # The firmware interpolates toward 1000 µs; the horn follows at 100 µs/s at most (an independent bound).
    assert board.servos.position_us(0) >= 1500 - 100.0 * 1.0 - 1e-9


class ClockedGrip(CountingWorld):
    """A stand-in world whose grip sensor records the virtual time of every read."""

    def __init__(self, clock: VirtualClock) -> None:
        super().__init__()
        self.now_s = clock.now_s
        self.read_at_s: list[float] = []

    def read_u16(self) -> int:
        self.read_at_s.append(self.now_s())
        return 40000


@pytest.mark.parametrize("slow", [None, 5.0])
def test_the_grip_current_is_sampled_as_the_firmware_timer_does(slow: float | None) -> None:
    # main.py samples the grip ADC from a machine.Timer every GRIP_SAMPLE_MS, whatever the loop does; so does the
    # simulated board: on a fixed grid of virtual time, not from the control step, also while frames cost chip time.
    clock = VirtualClock()
    world = ClockedGrip(clock)
    board = SimBoard(clock=clock, world=world, stagger_ms=0, slow=slow)  # type: ignore[arg-type]
    board.feed(session_frames((1, 200, 1800)))
    board.run_until(0.3)
    assert board.controller.grip_timed
    reads_ms = [round(t_s * 1000, 6) for t_s in world.read_at_s]
    assert reads_ms and reads_ms == [float(t_ms) for t_ms in range(int(reads_ms[0]), 301, 2)]
    assert len(reads_ms) == len(set(reads_ms)), "one reading per expiry: the step does not sample"
    board.feed(protocol.encode("STATUS", 0, 0))
    board.run_until(0.33)  # answered at once, or once the chip has handled it
    status = [fields for kind, _s, _a, fields in frames(board) if kind == "STATUS"][-1]
    assert status[6:8] == ["unknown", "40000"], "a frame mean (no threshold in this CONFIG)"
    before = len(world.read_at_s)
    board.reset("watchdog")
    board.run_until(0.43)
    assert len(world.read_at_s) == before, "the reset board's gripper is limp: the new boot reads nothing"


def test_a_board_catching_up_on_a_clock_advanced_by_someone_else_samples_at_the_timer_s_times() -> None:
    # A host that sleeps on the virtual clock (waiting a PWM frame between two grip reads) and then polls: the
    # board catches up, and its timer's readings keep their 2 ms grid instead of all landing at the late instant
    # (which leaves a gap of the whole sleep in the frame: no verdict).
    clock = VirtualClock()
    world = ClockedGrip(clock)
    board = SimBoard(clock=clock, world=world, stagger_ms=0)  # type: ignore[arg-type]
    board.feed(session_frames())
    board.run_until(0.1)
    world.now_s = board._board_now_s  # the time the board sees at each conversion
    before = len(world.read_at_s)
    clock.sleep(0.05)
    board.catch_up()
    assert [round(t_s * 1000, 6) for t_s in world.read_at_s[before:]] == list(range(102, 151, 2))
    board.feed(protocol.encode("STATUS", 0, 0))
    board.step()
    status = [fields for kind, _s, _a, fields in frames(board) if kind == "STATUS"][-1]
    assert status[7] == "40000", "the frame is covered"
