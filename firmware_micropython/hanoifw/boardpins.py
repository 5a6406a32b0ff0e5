"""Which chip the board is, and the board_config.py settings for it, checked before anything is switched on.

``sys.platform`` is ``"esp32"`` on every ESP32 variant, whose pins differ (the ESP32-S3 has no GPIO 22-25), so
pin tables are keyed on the chip family named at the end of ``os.uname().machine`` (``"... with ESP32S3"``,
``"Raspberry Pi Pico with RP2040"``, ``"... with ESP32-D2WD"``): a package or module name after the family
(``ESP32-PICO-D4``, ``ESP32-S2FN4R2``, ``ESP32-C3FH4``) keeps the family's pin table.
A setting without an entry for the chip, or a watchdog timeout the port
refuses, is a :class:`BoardConfigError` whose message names the chip and the setting to change.
"""

RP2_CHIPS = ("RP2040", "RP2350")
RP2_MAX_WDT_MS = 8388  # rp2 port: the watchdog counts at most 0x7fffff us
# esp32 port: machine.WDT hands timeout_ms to esp_task_wdt_reconfigure as it is (ports/esp32/machine_wdt.c since
# v1.21; v1.20 divided it by 1000 and refused less than 1 s), so every build the floor below lets through takes any
# whole number of ms from 1.
ESP32_MIN_WDT_MS = 1


# ESP32 families whose pins differ from the classic ESP32 (longest names first is not needed: no one is a prefix
# of another). Any other "ESP32..." name (D0WD, D2WD, PICO-D4, U4WDH, PICO-V3) is a classic ESP32.
ESP32_FAMILIES = ("ESP32S2", "ESP32S3", "ESP32C2", "ESP32C3", "ESP32C5", "ESP32C6", "ESP32H2", "ESP32P4")
# esp32 port: before v1.26, machine.PWM(pin, freq=...) starts the channel at 50 % duty and restarts the timer before
# the duty is applied (one pulse of about 10 ms: a servo twitches). v1.26 applies the duty first: MicroPython commit
# 150a5aa3a1 ("esp32/machine_pwm: Improve PWM and make its API match other ports"), the 115th after the tag
# v1.26.0-preview. A build between the two says it is 1.26.0 too: sys.implementation.version is
# (1, 26, 0, "preview"), and os.uname().version names its commit, "v1.26.0-preview.N.gHASH on DATE" (N commits
# after the tag; "v1.26.0-preview on DATE" at the tag or without git): N < 115 has no fix.
ESP32_MIN_VERSION = (1, 26)
ESP32_FIX_PREVIEW_COMMITS = 115


class BoardConfigError(ValueError):
    """board_config.py does not fit this board: the message says which setting to change."""


def chip_name(machine: str) -> str:
    """The chip family of ``os.uname().machine``: the words after the last `` with `` (all of it if there are
    none), upper case, without spaces and dashes, cut to its family (``"ESP32S3"``, ``"ESP32"``, ``"RP2040"``;
    ``"ESP32-D2WD"`` and ``"ESP32-PICO-D4"`` are ``"ESP32"``, ``"ESP32-C3FH4"`` is ``"ESP32C3"``)."""
    cut = machine.rfind(" with ")
    name = machine[cut + 6 :] if cut >= 0 else machine
    name = name.upper().replace(" ", "").replace("-", "")
    for family in RP2_CHIPS:
        if name.startswith(family):
            return family
    for family in ESP32_FAMILIES:
        if name.startswith(family):
            return family
    if name.startswith("ESP32"):
        return "ESP32"
    return name


def preview_commits(build: str) -> int:
    """How many commits after its ``-preview`` tag a build is, from its ``os.uname().version``
    (``"v1.26.0-preview.115.g150a5aa3a1 on 2025-02-20"``: 115); 0 at the tag itself, or when it names no commit;
    -1 for a build that is no preview."""
    word = build.split(" ", 1)[0]
    cut = word.find("-preview")
    if cut < 0:
        return -1
    rest = word[cut + 8 :]
    count = rest[1:].split(".", 1)[0] if rest.startswith(".") else ""
    return int(count) if count.isdigit() else 0


def check_port_version(platform: str, version: tuple, build: str = "") -> None:
    """BoardConfigError naming the version when MicroPython ``version`` (``sys.implementation.version``) on
    ``platform`` (``sys.platform``) is too old to drive servos without a stray pulse: on esp32 before 1.26, or a
    1.26.0 preview ``build`` (``os.uname().version``) from before the fix."""
    if platform != "esp32":
        return
    number = ".".join(str(part) for part in version[:3])
    if tuple(version[:2]) < ESP32_MIN_VERSION:
        raise BoardConfigError(
            "MicroPython %s on esp32 gives a pulse at every PWM start (fixed in 1.26): flash v1.26 or later" % number
        )
    is_preview = len(version) > 3 and version[3] == "preview"
    if tuple(version[:3]) == (1, 26, 0) and is_preview and preview_commits(build) < ESP32_FIX_PREVIEW_COMMITS:
        raise BoardConfigError(
            "MicroPython %s-preview on esp32 (build %s) predates the PWM fix (v1.26.0-preview.%d): it gives a "
            "pulse at every PWM start; flash v1.26.0 or later"
            % (number, build.split(" ", 1)[0] or "unknown", ESP32_FIX_PREVIEW_COMMITS)
        )


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
    MicroPython port takes as it is: 1..8388 ms on rp2, any whole ms from 1 on esp32 (from v1.21)."""
    if timeout_ms is None:
        return
    if chip in RP2_CHIPS:
        if not 1 <= timeout_ms <= RP2_MAX_WDT_MS:
            raise BoardConfigError(
                "board_config.py HARDWARE_WDT_MS = %r: chip %s takes 1..%d ms" % (timeout_ms, chip, RP2_MAX_WDT_MS)
            )
    elif chip.startswith("ESP32"):
        if not (isinstance(timeout_ms, int) and timeout_ms >= ESP32_MIN_WDT_MS):
            raise BoardConfigError(
                "board_config.py HARDWARE_WDT_MS = %r: chip %s takes a whole number of ms from %d"
                % (timeout_ms, chip, ESP32_MIN_WDT_MS)
            )
