"""The fields of the board's HELLO and STATUS frames, built from a Controller's state (layout in
``protocol.FIELD_NAMES``; meaning in docs/protocol.md)."""

from hanoifw import protocol as p
from hanoifw.motion import MAX_DURATION_MS

# The board words (protocol.py defines them once)
REJECTED = p.FAULT_REJECTED  # shown in STATUS faults after an invalid MOVE, until CLEAR
GRIP_NONE = p.GRIP_NONE
GRIP_UNKNOWN = p.GRIP_UNKNOWN
GRIP_HELD = p.GRIP_HELD
GRIP_EMPTY = p.GRIP_EMPTY
RAIL_NONE = p.RAIL_NONE
RAIL_ON = p.RAIL_ON
RAIL_OFF = p.RAIL_OFF


def hello_fields(ctl) -> "list[str | int]":
    """HELLO: who the board is, what it can do, and where its command ids stand."""
    return [
        p.PROTOCOL_VERSION,
        ctl.fw_version,
        ctl.boot_id,
        ctl.reset_cause,
        ctl.queue_depth,
        ctl.channels,
        ctl.hard_min_us,
        ctl.hard_max_us,
        MAX_DURATION_MS,
        ctl.watchdog_ms,
        p.MAX_FRAME_LEN,
        ctl.last_done_cmd,
        ctl.last_queued_cmd,
        ctl.mode,
        0 if ctl.grip_sensor is None else 1,
        0 if ctl.rail_sense is None else 1,
    ]


def status_fields(ctl) -> "list[str | int]":
    """STATUS: mode, command ids, free slots, faults, grip word and reading (the frame mean), rail, how many
    measured positions follow, every channel's pulse, then (servos that report where they are) every channel's
    measured position in us (-1: no reading)."""
    measure = ctl.measure
    raw = -1 if ctl.grip_sensor is None else ctl.grip.mean_u16
    fields: list[str | int] = [
        ctl.boot_id,
        ctl.mode,
        ctl.last_done_cmd,
        ctl.last_queued_cmd,
        ctl.motion.free_slots,
        fault_text(ctl.faults, ctl.refused_cmd),
        grip_word(ctl.grip_sensor, raw, ctl.grip_threshold),
        raw,
        rail_word(ctl.rail_sense),
        0 if measure is None else ctl.channels,
    ]
    fields.extend(ctl.pulses_us)
    if measure is not None:
        for ch in range(ctl.channels):
            fields.append(measure(ch))
    return fields


def fault_text(faults: "list[str]", refused_cmd: int) -> str:
    """Latched faults joined by ``|`` (REJECTED added while a refused MOVE blocks the queue), or ``-``."""
    names = faults + [REJECTED] if refused_cmd else faults
    return p.FAULT_SEPARATOR.join(names) if names else p.NO_FAULTS


def grip_word(sensor, raw: int, threshold: int) -> str:
    """``held``/``empty`` by comparing ``raw`` (the frame mean) with ``threshold``; ``none`` without a sensor;
    ``unknown`` when there is no threshold (0) or no reading (-1: gripper output off, no full frame yet, read
    failed)."""
    if sensor is None:
        return GRIP_NONE
    if raw < 0 or threshold <= 0:
        return GRIP_UNKNOWN
    return GRIP_HELD if raw >= threshold else GRIP_EMPTY


def rail_word(rail_sense) -> str:
    """``on``/``off`` from the rail sense input; ``none`` when it is not wired or cannot be read."""
    if rail_sense is None:
        return RAIL_NONE
    try:
        return RAIL_ON if rail_sense.value() else RAIL_OFF
    except Exception:
        return RAIL_NONE
