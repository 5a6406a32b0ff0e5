"""Board entry point (MicroPython on ESP32, ESP32-S3 or RP2040): USB serial, servo outputs, grip sensor, rail
sense and the hardware watchdog around the hanoifw Controller. Wiring comes from board_config.py, looked up by
the chip family (hanoifw/boardpins.py); a setting that does not fit the chip, hardware that refuses one (no
PCA9685 answering at its address, a grip pin without an ADC, a pin without PWM), any other error while the
hardware is built, or an esp32 MicroPython older than 1.26, is printed in one line naming it (which setting, pin
or address, and what to check), and the board then answers the host's HELLO with mode BOARD_ERROR and that line
(never an output on; never a traceback into the REPL, which the host would not hear). The grip sensor is sampled
every 2 ms from a machine.Timer (hanoifw.board.start_grip_timer and grip_timer_maker: a hard interrupt on rp2, a
scheduled callback on esp32; the loop samples only where no timer can be made). Everything testable lives in
hanoifw; this file only touches the hardware.

What the servos do when this program stops (hardware/README.md says the same):
* Ctrl-C is no keyboard interrupt here (``micropython.kbd_intr(-1)`` first thing): one flipped bit on a UART
  turns a frame's ``C`` into 0x03. The loop stops (to the REPL) only at a Ctrl-C right after another control
  byte, as mpremote sends it (``\r\x03``) or a person presses it twice, and only while no output is on.
* A soft reset (Ctrl-D, mpremote) de-initialises the PWM outputs: servos on GPIO pins go limp at once.
* The hardware watchdog starts at the first CONFIG and cannot be stopped; a reset by it (or any MCU reset)
  stops GPIO PWM at once. A PCA9685 keeps its pulses through an MCU reset: main.py reads them back and keeps
  holding them (a new CONFIG does not jump). With its OE input wired (PCA9685_OE_PIN, pulled up) the outputs are
  off through the reset instead, and main.py starts them all off (the first CONFIG switches them on one at a
  time). If main.py fails after it has the servo driver, it switches every output off before it stops, so no
  pulse is left without a loop behind it.
* Bus servos (SERVO_DRIVER = "bus") have their own power and keep their torque and goal through an MCU reset, as
  a PCA9685 keeps its pulses: main.py reads back what each one holds and keeps holding it. A soft reset leaves
  them holding too; ``hanoibot home --release`` switches their torque off.
"""

import gc
import os
import select
import sys
import time

import board_config as cfg
import machine
from hanoifw.board import StreamPort, grip_timer_maker, make_boot_id, reset_cause_name, serve, start_grip_timer
from hanoifw.boardpins import RP2_CHIPS, BoardConfigError, check_port_version, check_wdt_ms, chip_name, for_chip
from hanoifw.controller import Controller


class ChannelMap:
    """Maps controller channels 0..n-1 to outputs of a larger servo driver (e.g. PCA9685 outputs)."""

    def __init__(self, driver, outputs):
        self._driver = driver
        self._outputs = outputs

    def held_us(self):
        """The pulse (us) each controller channel's output was found giving at start (0 = none)."""
        return [self._driver.held_us[output] for output in self._outputs]

    def set_pulse_us(self, channel, pulse_us):
        """Drive controller ``channel`` with a ``pulse_us`` microsecond pulse on its mapped driver output."""
        self._driver.set_pulse_us(self._outputs[channel], pulse_us)

    def stage_pulse_us(self, channel, pulse_us):
        """Stage controller ``channel``'s pulse for the driver's next :meth:`flush`."""
        self._driver.stage_pulse_us(self._outputs[channel], pulse_us)

    def flush(self):
        """Write every staged pulse in one transaction."""
        self._driver.flush()

    def release(self, channel):
        """Stop the pulses of controller ``channel`` (the servo goes limp)."""
        self._driver.release(self._outputs[channel])


# The ADC inputs to name when GRIP_SENSOR_PIN has none (ESP32: ADC1 only, which works alongside Wi-Fi).
ADC_PINS = {"ESP32": "GPIO 32-39", "ESP32S3": "GPIO 1-10", "RP2040": "GPIO 26-28", "RP2350": "GPIO 26-28"}


def refused(setting, what, err, fix):
    """The BoardConfigError for hardware that refused ``setting`` of board_config.py at start: ``what`` it refused,
    the port's own error ``err`` and ``fix``, what to check (all in one line, without commas: the host gets it
    as one field of an ERROR frame)."""
    return BoardConfigError("board_config.py %s: %s (%s: %s): %s" % (setting, what, type(err).__name__, err, fix))


def make_bus_servos(chip):
    """The Feetech bus of board_config (SERVO_DRIVER = "bus") for ``chip``: (servos, pulses the servos hold since
    before boot: they keep their torque through an MCU reset). A UART the port refuses is a BoardConfigError."""
    from hanoifw.busservos import BusServos

    if len(cfg.BUS_IDS) != cfg.CHANNELS:
        raise BoardConfigError(
            "board_config.py BUS_IDS has %d ids: expected one per channel (CHANNELS = %d)"
            % (len(cfg.BUS_IDS), cfg.CHANNELS)
        )
    uart_id, tx, rx = for_chip(cfg.BUS_UART, chip, "BUS_UART")
    try:
        uart = machine.UART(
            uart_id,
            baudrate=cfg.BUS_BAUD,
            tx=machine.Pin(tx),
            rx=machine.Pin(rx),
            timeout=0,
            timeout_char=1,
            rxbuf=256,
        )
    except Exception as err:
        raise refused(
            "BUS_UART",
            "chip %s has no UART %r on TX GPIO %r and RX GPIO %r at %r baud" % (chip, uart_id, tx, rx, cfg.BUS_BAUD),
            err,
            "give that UART's own pins (the board's pinout)",
        )
    direction = None
    if cfg.BUS_DIR_PIN is not None:
        try:  # low (listening) from the first instant
            direction = machine.Pin(cfg.BUS_DIR_PIN, machine.Pin.OUT, value=0)
        except Exception as err:
            what = "chip %s has no output GPIO %r" % (chip, cfg.BUS_DIR_PIN)
            raise refused("BUS_DIR_PIN", what, err, "give a free GPIO or None")
    servos = BusServos(
        uart,
        cfg.BUS_IDS,
        steps_per_turn=cfg.BUS_STEPS_PER_TURN,
        echo=cfg.BUS_ECHO,
        direction=direction,
        char_us=10000000 // cfg.BUS_BAUD + 1,
        sleep_us=time.sleep_us,
    )
    return servos, servos.read_held_us(time.sleep_ms)


def make_servos(chip):
    """Build the servo outputs chosen in board_config for ``chip``: (servos, pulses held since before boot).
    Hardware that refuses a setting (an I2C bus on other pins, no PCA9685 answering, a pin without PWM) is a
    BoardConfigError naming it."""
    if cfg.SERVO_DRIVER == "bus":
        return make_bus_servos(chip)
    if cfg.SERVO_DRIVER == "pca9685":
        from hanoifw.pca9685 import PCA9685

        bus, scl, sda = for_chip(cfg.I2C_BUS, chip, "I2C_BUS")
        try:
            i2c = machine.I2C(bus, scl=machine.Pin(scl), sda=machine.Pin(sda), freq=cfg.I2C_FREQ_HZ)
        except Exception as err:
            raise refused(
                "I2C_BUS",
                "chip %s has no I2C bus %r on SCL GPIO %r and SDA GPIO %r" % (chip, bus, scl, sda),
                err,
                "give that bus's own pins (the board's pinout)",
            )
        oe = None
        if cfg.PCA9685_OE_PIN is not None:
            try:  # OE high (outputs disabled) from the first instant: a bare Pin(n, Pin.OUT) drives low at once
                oe = machine.Pin(cfg.PCA9685_OE_PIN, machine.Pin.OUT, value=1)
            except Exception as err:
                raise refused(
                    "PCA9685_OE_PIN",
                    "chip %s has no output GPIO %r" % (chip, cfg.PCA9685_OE_PIN),
                    err,
                    "give a free GPIO or None",
                )
        try:
            driver = PCA9685(
                i2c, address=cfg.PCA9685_ADDRESS, freq_hz=cfg.SERVO_FREQ_HZ, osc_hz=cfg.PCA9685_OSC_HZ, oe=oe
            )
        except OSError as err:  # no ACK: nothing at that address (unpowered, unwired, other address)
            raise refused(
                "PCA9685_ADDRESS",
                "no PCA9685 at 0x%02x on I2C bus %r (SCL GPIO %r SDA GPIO %r)" % (cfg.PCA9685_ADDRESS, bus, scl, sda),
                err,
                "check its VCC GND SDA SCL wires and A0-A5 jumpers",
            )
        servos = ChannelMap(driver, cfg.PCA9685_CHANNELS)
        return servos, servos.held_us()
    from hanoifw.servos import PwmServos, open_pwm

    pins = for_chip(cfg.PWM_PINS, chip, "PWM_PINS")
    pwms = []
    for pin in pins:
        try:
            pwms.append(open_pwm(machine.PWM, machine.Pin(pin), cfg.SERVO_FREQ_HZ))
        except Exception as err:
            raise refused("PWM_PINS", "chip %s gives no PWM on GPIO %r" % (chip, pin), err, "give a PWM-capable GPIO")
    if chip in RP2_CHIPS:  # the slices wrap together and take each step's compare values in one frame
        from hanoifw.rp2pwm import Rp2PwmServos

        servos = Rp2PwmServos(
            pwms,
            pins,
            chip=chip,
            mem32=machine.mem32,
            disable_irq=machine.disable_irq,
            enable_irq=machine.enable_irq,
            freq_hz=cfg.SERVO_FREQ_HZ,
        )
        return servos, None
    from hanoifw.ledc import LEDC_CHIPS, LedcServos

    if chip in LEDC_CHIPS:  # each step's duties clear of the LEDC timer's overflow: one frame for all joints
        return LedcServos(pwms, pins, chip=chip, mem32=machine.mem32, freq_hz=cfg.SERVO_FREQ_HZ), None
    return PwmServos(pwms, freq_hz=cfg.SERVO_FREQ_HZ), None


def make_grip_sensor(chip):
    """The grip-current ADC of board_config.GRIP_SENSOR_PIN (None: no sensor), full 0..3.3 V range; a
    BoardConfigError naming the pin and the chip's ADC pins when the port refuses it."""
    pin = for_chip(cfg.GRIP_SENSOR_PIN, chip, "GRIP_SENSOR_PIN") if cfg.GRIP_SENSOR_PIN is not None else None
    if pin is None:
        return None
    atten = getattr(machine.ADC, "ATTN_11DB", None)  # esp32: 0..~3.1 V instead of 0..1.1 V; rp2 has none
    try:
        if atten is None:
            return machine.ADC(machine.Pin(pin))
        return machine.ADC(machine.Pin(pin), atten=atten)
    except Exception as err:  # ValueError: a pin without an ADC
        raise refused(
            "GRIP_SENSOR_PIN",
            "chip %s has no ADC on GPIO %r" % (chip, pin),
            err,
            "wire the sensor to an ADC pin (%s) or set None" % ADC_PINS.get(chip, "see the pinout"),
        )


def make_rail_sense(chip):
    """The rail sense input of board_config.RAIL_SENSE_PIN (None: not wired); a BoardConfigError naming the pin
    when the port refuses it."""
    pin = for_chip(cfg.RAIL_SENSE_PIN, chip, "RAIL_SENSE_PIN") if cfg.RAIL_SENSE_PIN is not None else None
    if pin is None:
        return None
    try:
        return machine.Pin(pin, machine.Pin.IN)
    except Exception as err:
        raise refused("RAIL_SENSE_PIN", "chip %s has no input GPIO %r" % (chip, pin), err, "give a free GPIO or None")


def main():
    """Check board_config against this chip, build the outputs and sensors, and serve the host until Ctrl-C."""
    import micropython

    micropython.kbd_intr(-1)  # from here on a stray 0x03 is data (hanoifw.board.serve decides what stops it)
    uname = os.uname()
    chip = chip_name(uname.machine)
    try:
        check_port_version(sys.platform, sys.implementation.version, getattr(uname, "version", ""))
        check_wdt_ms(chip, cfg.HARDWARE_WDT_MS)
        grip_sensor = make_grip_sensor(chip) if cfg.SERVO_DRIVER != "bus" else None
        rail_sense = make_rail_sense(chip)
        servos, held_us = make_servos(chip)
        if cfg.SERVO_DRIVER == "bus":  # the gripper's own load is the grip sensor
            from hanoifw.busservos import BusGripLoad

            grip_sensor = BusGripLoad(servos)
    except Exception as err:  # never a traceback into the REPL: the host would hear nothing (issue 34, defect 3)
        text = str(err) if isinstance(err, BoardConfigError) else unforeseen(err)
        print("hanoibot: %s" % text)
        serve_board_error(text)
        return
    try:
        serve_host(servos, held_us, grip_sensor, rail_sense)
    except Exception:
        for channel in range(cfg.CHANNELS):
            servos.release(channel)
        raise


def unforeseen(err):
    """The BOARD_ERROR text of an error building the hardware that no setting above names."""
    return "building the board's hardware failed (%s: %s): check board_config.py against the wiring" % (
        type(err).__name__,
        err,
    )


class NoServos:
    """The servo outputs of a board whose board_config.py does not fit: there are none to drive."""

    def set_pulse_us(self, channel, pulse_us):
        raise RuntimeError("no servo outputs: board_config.py does not fit this board")

    def release(self, channel):
        pass


def serve_board_error(text):
    """Answer the host with mode BOARD_ERROR and ``text`` (why board_config.py does not fit) instead of going
    silent: on native USB the printed line is lost when no host holds DTR. Nothing is ever switched on."""
    import micropython

    controller = Controller(
        NoServos(),
        channels=cfg.CHANNELS,
        boot_id=make_boot_id(os.urandom(4)),
        reset_cause=reset_cause_name(machine.reset_cause(), machine),
        board_error=text,
    )
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    serve(controller, StreamPort(poller, sys.stdin.buffer, sys.stdout.buffer), time, kbd_intr=micropython.kbd_intr)


def serve_host(servos, held_us, grip_sensor, rail_sense):
    """Wire USB serial, the outputs, the sensors and the hardware watchdog to a Controller and serve."""
    import micropython

    controller = Controller(
        servos,
        channels=cfg.CHANNELS,
        boot_id=make_boot_id(os.urandom(4)),
        reset_cause=reset_cause_name(machine.reset_cause(), machine),
        queue_depth=cfg.QUEUE_DEPTH,
        watchdog_ms=cfg.HOST_WATCHDOG_MS,
        grip_sensor=grip_sensor,
        rail_sense=rail_sense,
        held_us=held_us,
        stagger_ms=cfg.ENABLE_STAGGER_MS,
        enable_order=cfg.ENABLE_ORDER,
    )
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    port = StreamPort(poller, sys.stdin.buffer, sys.stdout.buffer)
    make_wdt = None
    if cfg.HARDWARE_WDT_MS:

        def make_wdt():
            """The hardware watchdog (timeout HARDWARE_WDT_MS ms), started at the first CONFIG."""
            return machine.WDT(timeout=cfg.HARDWARE_WDT_MS)

    gc.collect()
    # The grip current is sampled at a fixed rate by a timer (the loop's own sampling comes late while it handles
    # frames or collects garbage); without one the loop samples while it waits.
    grip_timer = start_grip_timer(controller, grip_timer_maker(machine.Timer, sys.platform), time.ticks_ms)
    try:
        result = serve(
            controller,
            port,
            time,
            make_wdt=make_wdt,
            period_ms=cfg.CONTROL_PERIOD_MS,
            kbd_intr=micropython.kbd_intr,
            collect=gc.collect,
        )
    finally:
        if grip_timer is not None:  # nothing samples into a controller that no loop serves
            grip_timer.deinit()
    if result == "interrupted":
        print("hanoibot: Ctrl-C: stopped with every servo output off; REPL follows")


if __name__ == "__main__":
    main()
