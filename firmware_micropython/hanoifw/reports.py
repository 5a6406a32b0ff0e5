"""The fields of the board's HELLO and STATUS frames, built from a Controller's state (layout in
``protocol.FIELD_NAMES``; meaning in docs/protocol.md)."""

from hanoifw import protocol as p
from hanoifw.motion import MAX_DURATION_MS

REJECTED = "REJECTED"  # shown in STATUS faults after an invalid MOVE, until CLEAR
MAX_GRIP_MM = 9999  # keeps STATUS within protocol.MAX_FRAME_LEN whatever the sensor says


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
    ]


def status_fields(ctl) -> "list[str | int]":
    """STATUS: mode, command ids, free slots, faults, grip in mm, and the pulse of every channel in us."""
    fields: list[str | int] = [
        ctl.boot_id,
        ctl.mode,
        ctl.last_done_cmd,
        ctl.last_queued_cmd,
        ctl.motion.free_slots,
        fault_text(ctl.faults, ctl.refused_cmd),
        read_grip_mm(ctl.grip_sensor),
    ]
    fields.extend(ctl.pulses_us)
    return fields


def fault_text(faults: "list[str]", refused_cmd: int) -> str:
    """Latched faults joined by ``|`` (REJECTED added while a refused MOVE blocks the queue), or ``-``."""
    names = faults + [REJECTED] if refused_cmd else faults
    return "|".join(names) if names else "-"


def read_grip_mm(sensor) -> int:
    """The grip sensor reading in mm (0 = nothing held), clipped to -1..9999; -1 without a sensor or when the
    sensor fails."""
    if sensor is None:
        return -1
    try:
        return min(max(int(sensor.read()), -1), MAX_GRIP_MM)
    except Exception:
        return -1
