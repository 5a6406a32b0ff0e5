"""HELLO and STATUS parsing: typed values from the codec's field layouts, one clear error otherwise."""

from __future__ import annotations

import pytest
from hanoibot.errors import ProtocolMismatch
from hanoibot.link.status import Fault, Grip, Hello, Mode, Rail, Status, parse_hello, parse_status
from hanoifw import protocol
from hanoifw.rxframe import FrameReader


def fields_of(kind: str, fields: list[str | int]) -> list[str]:
    """The fields as the host receives them: encoded by the codec, then decoded."""
    ((_kind, _seq, _ack, decoded),) = FrameReader().feed(protocol.encode(kind, 1, 2, fields))
    return decoded


def test_status_fields_become_typed_values() -> None:
    status = parse_status(
        fields_of(
            "STATUS",
            ["ab12", "MOVING", 7, 9, 6, "ESTOP|HOST_LOST", "held", 41000, "on", 0, 1500, 1400, 1300, 1200, 1100],
        )
    )
    assert status == Status(
        "ab12", "MOVING", 7, 9, 6, ("ESTOP", "HOST_LOST"), "held", 41000, "on", (1500, 1400, 1300, 1200, 1100)
    )
    assert status.is_stopped


@pytest.mark.parametrize(
    ("mode", "faults", "stopped"), [("IDLE", "-", False), ("FAULT", "-", True), ("IDLE", "REJECTED", True)]
)
def test_is_stopped_follows_mode_and_faults(mode: str, faults: str, stopped: bool) -> None:
    status = parse_status(fields_of("STATUS", ["b", mode, 0, 0, 8, faults, "none", -1, "none", 0, 1500]))
    assert status.is_stopped is stopped
    assert status.faults == (() if faults == "-" else (faults,))


def test_measured_positions_follow_the_pulses() -> None:
    fields = ["b", "IDLE", 0, 0, 8, "-", "held", 640, "none", 3, 1500, 1400, 1300, 1498, -1, 1302]
    status = parse_status(fields_of("STATUS", fields))
    assert status.pulses_us == (1500, 1400, 1300) and status.measured_us == (1498, -1, 1302)
    plain = parse_status(fields_of("STATUS", ["b", "IDLE", 0, 0, 8, "SERVO_SILENT", "none", -1, "none", 0, 1500]))
    assert plain.measured_us == () and plain.faults == (Fault.SERVO_SILENT,)
    with pytest.raises(ProtocolMismatch, match="3 measured positions after 1 pulses"):
        parse_status(fields_of("STATUS", ["b", "IDLE", 0, 0, 8, "-", "none", -1, "none", 3, 1500, 1, 2, 3]))


def test_hello_by_name() -> None:
    values = [protocol.PROTOCOL_VERSION, "0.1.0", "cafe", "power", 8, 5, 500, 2500, 60000, 300, 256, 0, 0, "IDLE", 1, 0]
    hello = parse_hello(fields_of("HELLO", values))
    assert hello == Hello(
        protocol.PROTOCOL_VERSION, "0.1.0", "cafe", "power", 8, 5, 500, 2500, 60000, 300, 256, 0, 0, "IDLE", 1, 0
    )


def test_other_protocol_version_is_named() -> None:
    with pytest.raises(ProtocolMismatch, match=f"version 9: this host speaks version {protocol.PROTOCOL_VERSION}"):
        parse_hello(["9", "x"])


def test_a_status_that_does_not_fit_is_named() -> None:
    with pytest.raises(ProtocolMismatch, match="STATUS with fields 'b,IDLE'"):
        parse_status(["b", "IDLE"])


def test_board_words_are_parsed_into_enums_that_match_the_codec_word_for_word() -> None:
    status = parse_status(fields_of("STATUS", ["b", "HELD", 0, 0, 8, "POWER_LOST|DROP", "empty", 12, "off", 0, 1500]))
    assert (status.mode, status.faults, status.grip, status.rail) == (
        Mode.HELD,
        (Fault.POWER_LOST, Fault.DROP),
        Grip.EMPTY,
        Rail.OFF,
    )
    assert [m.value for m in Mode] == list(protocol.MODES)
    assert [f.value for f in Fault] == list(protocol.FAULTS)
    assert [g.value for g in Grip] == list(protocol.GRIPS)
    assert [r.value for r in Rail] == list(protocol.RAILS)


@pytest.mark.parametrize(
    ("field", "fields"),
    [
        ("mode", ["b", "DANCING", 0, 0, 8, "-", "none", -1, "none", 0, 1500]),
        ("fault", ["b", "IDLE", 0, 0, 8, "ESTOP|GREMLIN", "none", -1, "none", 0, 1500]),
        ("grip", ["b", "IDLE", 0, 0, 8, "-", "maybe", -1, "none", 0, 1500]),
        ("rail", ["b", "IDLE", 0, 0, 8, "-", "none", -1, "sagging", 0, 1500]),
    ],
)
def test_an_unknown_board_word_is_a_protocol_mismatch_naming_the_field(field: str, fields: list[str | int]) -> None:
    with pytest.raises(ProtocolMismatch, match=f"board sent {field} "):
        parse_status(fields_of("STATUS", fields))
