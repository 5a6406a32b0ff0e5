"""What hardware/README.md tells a maker to wire, checked where a drawing or a table can be read (issue 34 item 7):
the grip sensor's amplifier across its shunt, no pull-up on a strapping pin, ESP32 GPIO 14's reset pull-up, a
low-dropout regulator from a 6 V supply, the disks' hole; board_config.py's comments say the same."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "hardware" / "README.md").read_text()
BOARD_CONFIG = (ROOT / "firmware_micropython" / "board_config.py").read_text()


def section(title: str) -> str:
    """The text of the section headed ``title`` (any level), up to the next heading."""
    start = README.index(f" {title}\n")
    end = README.find("\n#", start + 1)
    return README[start : end if end >= 0 else len(README)]


def drawing(title: str) -> list[str]:
    """The lines of the first fenced drawing in section ``title``."""
    text = section(title)
    start = text.index("```\n") + 4
    return text[start : text.index("```", start)].splitlines()


def test_the_grip_amplifier_sits_across_the_shunt_in_plus_at_the_servo_in_minus_at_the_supply() -> None:
    # INA180 datasheet, pin functions: low-side sensing, IN+ to the load side of the shunt, IN- to its ground side.
    # The old drawing put IN+ and IN- both on the servo's ground lead, where the amplifier sees nothing.
    lines = drawing("Grip sensor")

    def row(word: str) -> int:
        rows = [i for i, line in enumerate(lines) if word in line]
        assert len(rows) == 1, (word, rows)
        return rows[0]

    servo, plus, shunt, minus, supply = (
        row(word) for word in ("gripper servo GND", "IN+", "Ω shunt", "IN-", "servo supply −")
    )
    assert servo < plus < shunt < minus < supply, "IN+ between the servo and the shunt, IN- between it and the supply"
    assert "INA180" in section("Grip sensor") and "ground side" in section("Grip sensor")


def test_the_oe_pull_up_is_kept_off_the_strapping_pins_that_pick_the_flash_voltage() -> None:
    wiring = section("Wiring")
    oe = wiring[wiring.index("Its OE input") :]
    assert "GPIO 12" in oe and "1.8 V" in oe and "GPIO 45" in oe and "does not boot" in oe
    assert "GPIO 12 (ESP32-S3 GPIO 45) selects 1.8 V flash" in BOARD_CONFIG


def test_esp32_gpio_14s_reset_pull_up_is_named_with_the_pull_down_that_beats_it() -> None:
    assert "GPIO 14" in section("Wiring") and "pull-up" in section("Wiring") and "10 kΩ pull-down" in section("Wiring")
    assert "GPIO 14 (MTMS) comes out of reset with a weak pull-up" in BOARD_CONFIG


def test_a_6_v_supply_feeds_the_board_through_a_low_dropout_regulator_and_usb_back_feed_is_named() -> None:
    power = section("Power")
    assert "low-dropout" in power and "LM7805" in power and "AMS1117" in power
    assert "back-feeds" in power
    assert "low-dropout 5 V regulator" in section("Bill of materials")


def test_the_disks_hole_is_the_one_robot_toml_has() -> None:
    toml = (ROOT / "hardware" / "robot.toml").read_text()
    assert "disk_hole_diameter_mm = 14.0" in toml
    assert "**14 mm hole**" in section("Bill of materials") and "hole ≥ 13.9 mm" in section("Disks and pegs")
