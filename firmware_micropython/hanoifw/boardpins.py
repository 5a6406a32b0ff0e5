"""Which chip the board is, and the board_config.py settings for it, checked before anything is switched on.

``sys.platform`` is ``"esp32"`` on every ESP32 variant, whose pins differ (the ESP32-S3 has no GPIO 22-25), so
pin tables are keyed on the chip named at the end of ``os.uname().machine`` (``"... with ESP32S3"``,
``"Raspberry Pi Pico with RP2040"``). A setting without an entry for the chip, or a watchdog timeout the port
refuses, is a :class:`BoardConfigError` whose message names the chip and the setting to change.
"""

RP2_CHIPS = ("RP2040", "RP2350")
RP2_MAX_WDT_MS = 8388  # rp2 port: the watchdog counts at most 0x7fffff us
ESP32_MIN_WDT_MS = 1000  # esp32 port (v1.20): whole seconds only, at least 1 s


class BoardConfigError(ValueError):
    """board_config.py does not fit this board: the message says which setting to change."""


def chip_name(machine: str) -> str:
    """The chip of ``os.uname().machine``: the words after the last `` with `` (all of it if there are none),
    upper case, without spaces and dashes (``"ESP32S3"``, ``"ESP32"``, ``"RP2040"``)."""
    cut = machine.rfind(" with ")
    name = machine[cut + 6 :] if cut >= 0 else machine
    return name.upper().replace(" ", "").replace("-", "")


def for_chip(table: dict, chip: str, setting: str):
    """``table[chip]``, or a BoardConfigError naming the chip, the setting and the chips it has entries for."""
    if chip in table:
        return table[chip]
    known = ", ".join(sorted(table))
    raise BoardConfigError(
        "board_config.py %s has no entry for chip %s (it has %s): add one with this board's pins"
        % (setting, chip, known)
    )


def check_wdt_ms(chip: str, timeout_ms) -> None:
    """BoardConfigError unless ``timeout_ms`` (HARDWARE_WDT_MS; None = off) is a watchdog timeout ``chip``'s
    MicroPython port takes as it is: 1..8388 ms on rp2, whole seconds from 1000 ms on esp32."""
    if timeout_ms is None:
        return
    if chip in RP2_CHIPS:
        if not 1 <= timeout_ms <= RP2_MAX_WDT_MS:
            raise BoardConfigError(
                "board_config.py HARDWARE_WDT_MS = %r: chip %s takes 1..%d ms" % (timeout_ms, chip, RP2_MAX_WDT_MS)
            )
    elif chip.startswith("ESP32"):
        if timeout_ms < ESP32_MIN_WDT_MS or timeout_ms % 1000:
            raise BoardConfigError(
                "board_config.py HARDWARE_WDT_MS = %r: chip %s takes whole seconds from %d ms"
                % (timeout_ms, chip, ESP32_MIN_WDT_MS)
            )
