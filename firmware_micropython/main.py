"""Board entry point (MicroPython on ESP32 or RP2040): USB serial + servo HAL + hardware watchdog around the
hanoifw Controller. Wiring comes from board_config.py. Everything testable lives in hanoifw; this file only
touches the hardware.

Ctrl-C from a terminal latches ESTOP and leaves the servos holding their pose, then drops to the REPL (see
hanoifw/board.py). The hardware watchdog starts at the first CONFIG; once started it cannot be stopped, so a board
that was configured resets HARDWARE_WDT_MS after Ctrl-C (its servos go limp at the reset, and after boot no
servo gets a pulse until the host sends CONFIG again).
"""

import gc
import os
import select
import sys
import time

import board_config as cfg
import machine
from hanoifw.board import StreamPort, make_boot_id, reset_cause_name, serve
from hanoifw.controller import Controller


class ChannelMap:
    """Maps controller channels 0..n-1 to outputs of a larger servo driver (e.g. PCA9685 outputs)."""

    def __init__(self, driver, outputs):
        self._driver = driver
        self._outputs = outputs

    def set_pulse_us(self, channel, pulse_us):
        """Drive controller ``channel`` with a ``pulse_us`` microsecond pulse on its mapped driver output."""
        self._driver.set_pulse_us(self._outputs[channel], pulse_us)

    def release(self, channel):
        """Stop the pulses of controller ``channel`` (the servo goes limp)."""
        self._driver.release(self._outputs[channel])


def make_servos(platform):
    """Build the servo HAL chosen in board_config for ``platform`` (sys.platform)."""
    if cfg.SERVO_DRIVER == "pca9685":
        from hanoifw.pca9685 import PCA9685

        bus, scl, sda = cfg.I2C_BUS[platform]
        i2c = machine.I2C(bus, scl=machine.Pin(scl), sda=machine.Pin(sda), freq=cfg.I2C_FREQ_HZ)
        driver = PCA9685(i2c, address=cfg.PCA9685_ADDRESS, freq_hz=cfg.SERVO_FREQ_HZ)
        return ChannelMap(driver, cfg.PCA9685_CHANNELS)
    from hanoifw.servos import PwmServos

    pins = cfg.PWM_PINS[platform]
    return PwmServos([machine.PWM(machine.Pin(pin)) for pin in pins], freq_hz=cfg.SERVO_FREQ_HZ)


def main():
    """Wire USB serial, the servo HAL and the hardware watchdog to a Controller and serve until Ctrl-C."""
    servos = make_servos(sys.platform)
    controller = Controller(
        servos,
        channels=cfg.CHANNELS,
        boot_id=make_boot_id(os.urandom(4)),
        reset_cause=reset_cause_name(machine.reset_cause(), machine),
        queue_depth=cfg.QUEUE_DEPTH,
        watchdog_ms=cfg.HOST_WATCHDOG_MS,
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
    if serve(controller, port, time, make_wdt=make_wdt, period_ms=cfg.CONTROL_PERIOD_MS) == "interrupted":
        print("hanoibot: Ctrl-C: e-stop latched, servos holding; REPL follows")


if __name__ == "__main__":
    main()
