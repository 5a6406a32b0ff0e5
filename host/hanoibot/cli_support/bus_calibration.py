"""``hanoibot calibrate`` on servos that say where they are (bus servos: STATUS carries measured positions).

The arm goes limp (RELEASE); the person moves it by hand to each peg, at its foot and above it, and presses ``s``
(or Enter) when it is there: the pose the servos report is read from STATUS, and after each peg every servo's
offset and direction are fitted (:mod:`hanoibot.motion.joint_fit`) and saved into the config at once. Then the
person sweeps each joint from one end of its travel to the other while the positions are read every
:data:`SWEEP_POLL_S`; the lowest and highest become the servo's pulse limits, a margin inside. Finally the servos
hold again where the hand left them and the arm, now calibrated, goes above each peg by itself: the person sees
that it stands right over each one.

A session cut short keeps what was saved; the poses confirmed so far are kept in a record beside the key
calibration's (:mod:`hanoibot.ops.calibration_progress`) and the next ``hanoibot calibrate`` goes on from the first
peg not confirmed, as long as the config file is still the one this session wrote.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..motion.joint_fit import (
    BUS_US_PER_DEG,
    POSES,
    JointFit,
    PoseKey,
    fit_servos,
    swept_limits,
)
from ..ops.bus_hand import SWEEP_POLL_S, go_limp, hold_where_it_stands, measured_now, measured_pose, serve
from ..ops.calibration_progress import progress_dir
from ..puzzle import peg_letter

#: Keys that confirm a pose or end the sweep.
DONE_KEYS = ("s", "\n", "\r")
#: A fit whose poses disagree by more than this (degrees) is pointed out.
DISAGREE_DEG = 3.0
#: What each pose asks of the person.
ASKS = {
    "foot": "move the arm by hand until the open fingers stand around the foot of peg {peg}, resting on the board, "
    "the jaws pointing straight down; then press s (or Enter)",
    "tip": "now lift it straight up until the fingertips are level with the top of peg {peg}, the jaws still "
    "pointing down; then press s (or Enter)",
}


# --- the record of a session under way ----------------------------------------------------------------------------
def record_path(config: Path) -> Path:
    """Where the poses of a bus calibration of ``config`` are kept while it is under way."""
    key = hashlib.sha256(str(config.resolve()).encode()).hexdigest()[:12]
    return progress_dir() / f"{config.stem}-{key}-bus.json"


def _file_hash(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


@dataclass
class BusRecord:
    """The poses (µs per channel) a bus calibration of ``config`` confirmed, by peg and place; ``written`` the
    sha256 of the config file as the session last saved it."""

    config: Path
    poses: dict[PoseKey, tuple[int, ...]] = field(default_factory=dict)
    written: str = ""
    started: str = ""

    def confirmed_pegs(self) -> int:
        """How many pegs, from A on, have every pose confirmed."""
        peg = 0
        while all(PoseKey(peg, where) in self.poses for where in POSES):
            peg += 1
        return peg

    def save(self) -> None:
        """Write the record (the config file was just saved: its hash is taken now)."""
        self.written = _file_hash(self.config)
        self.started = self.started or datetime.now(UTC).isoformat(timespec="seconds")
        path = record_path(self.config)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = {
            "config": str(self.config.resolve()),
            "poses": {f"{key.peg}/{key.where}": list(pulses) for key, pulses in self.poses.items()},
            "written": self.written,
            "started": self.started,
        }
        temporary = path.with_name(path.name + ".new")
        temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)

    def finish(self) -> None:
        """The session ended: forget it."""
        with contextlib.suppress(FileNotFoundError):
            record_path(self.config).unlink()


def load_record(config: Path, channels: int) -> tuple[BusRecord, str]:
    """The bus calibration under way on ``config`` (a fresh one when there is none) and why an earlier record was
    set aside ("" when none was)."""
    fresh = BusRecord(config)
    try:
        data = json.loads(record_path(config).read_text(encoding="utf-8"))
        poses = {}
        for name, pulses in data["poses"].items():
            peg, where = name.split("/")
            poses[PoseKey(int(peg), where)] = tuple(int(p) for p in pulses)
        written, started = str(data["written"]), str(data.get("started", ""))
    except FileNotFoundError:
        return fresh, ""
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        fresh.finish()
        return fresh, "the record of an earlier calibration could not be read: starting at the first peg"
    if written != _file_hash(config) or any(len(p) != channels or w not in POSES for (_, w), p in poses.items()):
        fresh.finish()
        return fresh, f"{config} changed since an earlier calibration saved its pegs: starting at the first peg"
    return BusRecord(config, poses, written, started), ""


# --- the session ---------------------------------------------------------------------------------------------------
class BusCalibration:
    """One bus calibration of ``robot`` with ``person``, saved through ``writer`` into ``target`` (module doc)."""

    def __init__(self, robot: Any, person: Any, writer: Any, target: Path, *, restart: bool) -> None:
        self.robot = robot
        self.person = person
        self.writer = writer
        self.target = target
        self.config = robot.config
        self.names = self.config.channel_names()
        if restart:
            BusRecord(target).finish()
        self.record, self.set_aside = load_record(target, self.config.channels)
        self.fits: list[JointFit] = []

    def say(self, text: str) -> None:
        self.person.say(text)

    def check_bus_scale(self) -> None:
        """Before anything moves: ConfigError (one line) when the config would be refused at the bus's scale of
        :data:`BUS_US_PER_DEG` (e.g. PWM servos' deadband in ``[tolerances]``, too coarse at 5.6 µs a degree)."""
        from ..config.robot_config import parse_config

        for servo in self.config.servos:
            calibration = servo.calibration
            direction = getattr(calibration, "direction", 1)
            offset_deg = getattr(calibration, "offset_deg", 0.0)
            self.writer.set_servo_calibration(servo.name, offset_deg, direction, BUS_US_PER_DEG)
        try:
            parse_config(self.writer.text().encode(), source_path=self.target)
        except ConfigError as err:
            raise ConfigError(
                f"calibrate from the bus: at the bus servos' {BUS_US_PER_DEG:.2f} µs a degree (one turn is 2000 µs) "
                f"the robot config would be refused, so nothing was moved: {err}"
            ) from None

    def run(self) -> int:
        """The whole session: 0 when it ended, 1 when the input ended or a stop came first; ConfigError before
        anything moves when the config cannot take the bus's scale (:meth:`check_bus_scale`)."""
        self.check_bus_scale()
        pegs = len(self.config.board.pegs)
        if self.set_aside:
            self.say(f"calibrate: {self.set_aside}")
        first = self.record.confirmed_pegs()
        letters = ", ".join(peg_letter(p) for p in range(pegs))
        self.say(
            "calibrate from the bus: the servos say where they are, so you move the arm by hand and hanoibot reads it "
            f"(--keys calibrates with keys instead). Pegs {letters}: at each, the arm at the foot of the peg and then "
            f"above it; each peg is saved to {self.target} as soon as you confirm it. Then you move every joint "
            "through its range, and the limits are saved too."
        )
        if first:
            self.say(
                f"going on with the calibration that stopped at peg {peg_letter(min(first, pegs - 1))}: "
                f"{first} peg(s) already saved (--restart begins again at peg A)"
            )
        self.say("hold the arm: its servos go limp when you press s (or Enter)")
        if not self._wait_for_done():
            return self._stopped()
        go_limp(self.robot)
        self.say("the arm is limp: move it gently by hand")
        for peg in range(first, pegs):
            if not self._confirm_peg(peg):
                return self._stopped()
        if first == pegs:
            self._fit_and_save()
        self._tell_fits()
        if not self._sweep():
            return self._stopped()
        self.record.finish()
        self._hold_and_show()
        self.say(
            f"saved each servo's offset, direction and limits to {self.target}; for the gripper's grip: "
            "hanoibot calibrate --grip"
        )
        return 0

    def _wait_for_done(self) -> bool:
        """Wait for s or Enter (another key says what is wanted); False when the input ends, q or a stop."""
        for key in self.person.pressed_keys():
            if key in DONE_KEYS:
                return True
            if key == "q":
                return False
            self.say("press s (or Enter) when the arm is there, q to stop (what was saved stays saved)")
        return False

    def _confirm_peg(self, peg: int) -> bool:
        """Both poses at peg number ``peg``, then the fit saved; False when the session stops."""
        letter = peg_letter(peg)
        for where in POSES:
            key = PoseKey(peg, where)
            self.say(
                f"peg {letter}, {'at its foot' if where == 'foot' else 'above it'}: " + ASKS[where].format(peg=letter)
            )
            while True:
                if not self._wait_for_done():
                    return False
                pose = measured_pose(self.robot)
                if pose is not None:
                    break
                self.say("no reading from every servo just now (is the servo power on?): press s again")
            self.record.poses[key] = pose
            joints = " ".join(f"{n}={p}" for n, p in zip(self.names, pose, strict=True))
            self.say(f"read: {joints} (µs)")
        self._fit_and_save()
        self.say(f"peg {letter}: saved to {self.target}")
        return True

    def _fit_and_save(self) -> None:
        """Fit every servo to the poses so far and save the config (and the record)."""
        self.fits = fit_servos(self.config, dict(self.record.poses))
        for fit, servo in zip(self.fits, self.config.servos, strict=True):
            self.writer.set_servo_calibration(servo.name, fit.offset_deg, fit.direction, BUS_US_PER_DEG)
        self._save()
        self.record.save()

    def _save(self) -> Any:
        """Save the config (validated first: a tenth of a second, more on a loaded machine) while the link is served
        meanwhile, so the board never goes unheard; the config as loaded. ConfigError as the writer raises it."""
        done: dict[str, Any] = {}

        def save() -> None:
            try:
                done["config"] = self.writer.save(self.target)
            except BaseException as err:  # handed to the caller's thread
                done["error"] = err

        worker = threading.Thread(target=save, name="save the robot config", daemon=True)
        worker.start()
        while worker.is_alive():
            serve(self.robot)
            worker.join(SWEEP_POLL_S / 2)
        if "error" in done:
            raise done["error"]
        return done["config"]

    def _tell_fits(self) -> None:
        """Say what was found for each servo, and which ones the poses disagree on."""
        for fit in self.fits:
            if fit.direction_judged:
                turn = "" if fit.direction == 1 else " (it turns the other way round)"
                way = f"direction {fit.direction:+d}{turn}"
            else:
                way = f"direction {fit.direction:+d} kept (the pegs did not turn it enough to tell)"
            self.say(f"{fit.name}: offset {fit.offset_deg:.2f} deg, {way}")
            if fit.error_deg > DISAGREE_DEG:
                self.say(
                    f"{fit.name}: the poses disagree by {fit.error_deg:.1f} deg: was the arm where asked at each peg? "
                    "(hanoibot calibrate --restart asks for every peg again)"
                )

    def _sweep(self) -> bool:
        """The range of motion: read the joints while the person moves each end to end; save the limits. False when
        the session stops."""
        channels = range(len(self.config.servos))
        while True:
            low = [float("inf")] * len(channels)
            high = [float("-inf")] * len(channels)
            self.say(
                "now the range of motion: move each joint slowly from one end of its travel to the other, one after "
                "the other (as lerobot's calibrate asks); then press s (or Enter)"
            )
            with self._reading(functools.partial(_widen, low, high)):
                if not self._wait_for_done():
                    return False
            pose = measured_pose(self.robot)
            if pose is not None:
                _widen(low, high, pose)
            if self._save_limits(low, high):
                return True

    @contextlib.contextmanager
    def _reading(self, take: Callable[[Sequence[int]], None]) -> Any:
        """While inside, every wait for the person also reads the measured pose every :data:`SWEEP_POLL_S`."""
        keep_waiting = self.person.keep_waiting
        next_s = [0.0]

        def read_and_wait() -> bool:
            now_s = time.monotonic()
            if now_s >= next_s[0]:
                next_s[0] = now_s + SWEEP_POLL_S
                measured = measured_now(self.robot)
                if measured is not None:
                    take(measured)
            return bool(keep_waiting())

        self.person.keep_waiting = read_and_wait
        try:
            yield
        finally:
            self.person.keep_waiting = keep_waiting

    def _save_limits(self, low: list[float], high: list[float]) -> bool:
        """Write each swept servo's limits (pulses: the swept range; its joint's angles: a margin inside); True once
        saved (False: the config refused them, the person sweeps again)."""
        slots = self.config.chain.servo_slots
        for channel, (servo, fit) in enumerate(zip(self.config.servos, self.fits, strict=True)):
            inside = [pose[channel] for pose in self.record.poses.values()]
            calibration = fit.calibration(_center_us(servo))
            limits = swept_limits(low[channel], high[channel], calibration, inside, [servo.start_deg])
            if limits is None:
                moved = max(0.0, high[channel] - low[channel]) / BUS_US_PER_DEG
                self.say(
                    f"{servo.name}: not swept (it moved {moved:.0f} deg): its limits stay "
                    f"{servo.min_us}..{servo.max_us} µs"
                )
                continue
            note = f"range of motion swept by hand: {low[channel]:.0f}..{high[channel]:.0f} us (hanoibot calibrate)"
            self.writer.set_servo_limits(servo.name, limits.min_us, limits.max_us, note=note)
            joint = ""
            if slots[channel].actuator is not None and servo.held_deg is None:
                self.writer.set_joint_limits(slots[channel].name, limits.min_deg, limits.max_deg)
                joint = f", the joint kept within {limits.min_deg:.1f}..{limits.max_deg:.1f} deg"
            self.say(f"{servo.name}: swept {limits.min_us}..{limits.max_us} µs{joint}")
        try:
            self.config = self._save()
        except ConfigError as err:
            self.say(f"the limits were not saved: {err}; move the joints through their whole range again")
            return False
        return True

    def _hold_and_show(self) -> None:
        """The servos hold where the hand left them; the arm, now calibrated, goes above each peg by itself."""
        from ..ops.jog import Jogger

        robot, config = self.robot, self.config
        robot.config = config
        hold_where_it_stands(robot)
        self.say("the servos hold again; the arm now goes above each peg by itself: see that it stands right over each")
        jogger = Jogger(robot)
        for peg in range(len(config.board.pegs)):
            note = jogger.go_to_peg(peg, at_foot=False)
            self.say(f"above peg {peg_letter(peg)}{f' (stopped: {note})' if note else ''}")

    def _stopped(self) -> int:
        """Say why the session ended early and what is saved; exit code 1."""
        from ..commands.jog import ESTOPPED_WHILE_WAITING

        why = ESTOPPED_WHILE_WAITING if self.person.was_stopped else "the input ended"
        done = self.record.confirmed_pegs()
        if not done:
            self.say(f"calibration stopped ({why}): nothing was saved")
        else:
            self.say(
                f"calibration stopped ({why}): {done} peg(s) saved in {self.target}; run hanoibot calibrate again "
                "to go on from there"
            )
        return 1


def _center_us(servo: Any) -> float:
    """The pulse (µs) at which a servo's linear calibration is centred (1500 for any other)."""
    return float(getattr(servo.calibration, "center_us", 1500.0))


def _widen(low: list[float], high: list[float], pose: Sequence[int]) -> None:
    """Stretch ``low``/``high`` (per arm servo) to take in ``pose`` (µs per channel)."""
    for channel in range(len(low)):
        low[channel] = min(low[channel], pose[channel])
        high[channel] = max(high[channel], pose[channel])
