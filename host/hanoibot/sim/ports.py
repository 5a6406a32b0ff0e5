"""Port models: what MicroPython on a given chip does that the firmware's behaviour depends on.

``sim://?port=esp32`` (``hanoibot emulate --port-model esp32``) runs the firmware's own main loop
(:func:`hanoifw.board.serve`, as ``main.py`` starts it) against one of these models, on virtual time
(:mod:`hanoibot.sim.board_loop`); without the option the simulated board steps the firmware's controller on an
exact 10 ms grid and samples the grip on an exact 2 ms one, as it always did. Each figure below is read from
MicroPython's sources (tags v1.26.0-v1.28.0) and ESP-IDF v5.5.1 (MicroPython v1.27's recommended IDF):

* **The scheduler's tick.** A ``select.poll`` wait (``ipoll(timeout)``: the loop's wait between control steps)
  runs ``poll_set_poll_until_ready_or_timeout`` (extmod/modselect.c): check the streams, return if one is ready or
  ``ticks_ms() - start >= timeout``, else ``mp_event_wait_ms``, which on esp32 is its MICROPY_EVENT_POLL_HOOK
  (ports/esp32/mpconfigport.h): run what is scheduled, then ``ulTaskNotifyTake(pdFALSE, 1)``, a FreeRTOS wait
  of one tick. MicroPython's esp32 builds keep ESP-IDF's ``CONFIG_FREERTOS_HZ`` default of 100, so a wait ends
  only at a 10 ms tick, or when something notifies the task. ``time.sleep_ms`` waits in the same ticks and then
  busy-waits the rest (``mp_hal_delay_ms``, ports/esp32/mphalport.c), so it is exact. On rp2 the wait is a
  ``__wfe`` with an alarm (``mp_wfe_or_timeout``, ports/rp2/mphalport.h) at the ms still to go: it ends when the
  ms ticks show the timeout passed, to the µs (the port's granularity is ``ticks_ms``'s 1 ms), or at any interrupt.
* **What wakes the task.** On esp32 a ``machine.Timer`` interrupt schedules its callback and notifies the task
  (``machine_timer_isr_handler``: ``mp_sched_schedule`` + ``mp_hal_wake_main_task_from_isr``), and so does native
  USB (usb_serial_jtag.c; shared/tinyusb/mp_usbd.c's ``tud_event_hook_cb``); the UART's interrupt only puts the
  bytes in the input ring (ports/esp32/uart.c), so a board on a USB-UART bridge sees them at the next wake. On
  rp2 USB's interrupt ends the wait.
* **machine.Timer.** rp2: soft timers only (id -1), ``hard=True`` runs the callback in the interrupt, from 1.26
  (before, no ``hard`` keyword: a TypeError); esp32: hardware timers 0..3, every callback scheduled, ``hard=True``
  a ValueError from 1.27 and any ``hard=`` a TypeError before.
* **Output resolution**: the chip's own servo output, ``outputs`` (its counts:
  :func:`hanoibot.motion.drivers.output_us`; :func:`rp2_slice` and :func:`ledc_bits` derive them as MicroPython sets
  the chip up).
* **Reset behaviour**, per servo driver: the MCU's own PWM (rp2 slices, esp32 LEDC) stops at an MCU reset, the
  servos go limp; a PCA9685 keeps its pulses through it, unless its OE input is wired (then main.py finds them
  disabled and starts every output off): :func:`outputs_survive_reset`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError

#: The servo frame in µs (50 Hz: board_config.SERVO_FREQ_HZ).
FRAME_US = 20000
#: esp32: FreeRTOS ticks at 100 Hz (CONFIG_FREERTOS_HZ, ESP-IDF's default, kept by MicroPython's esp32 builds).
ESP32_TICK_US = 10000
#: Where the FreeRTOS tick falls in ticks_ms's ms (its timer is not the one ticks_ms counts): fixed, so runs repeat.
ESP32_TICK_PHASE_US = 3700
#: The MicroPython version a port model runs unless told otherwise (the virtual Pico's vendored image too).
DEFAULT_MICROPYTHON = (1, 27, 0)

#: The RP2040's system clock (Hz) at MicroPython's default.
RP2_SYS_HZ = 125_000_000
#: ESP32 and ESP32-S3 LEDC: MicroPython clocks it from APB at 80 MHz (ports/esp32/machine_pwm.c) and takes
#: ESP-IDF's ``ledc_find_suitable_duty_resolution`` (min(log2(80 MHz / 50 Hz), timer width) = 20 on the ESP32,
#: 14 on the S3), at most 16 bits, one bit less where that is the timer's whole width (a hardware bug at 100 %).
LEDC_SRC_HZ = 80_000_000
LEDC_TIMER_BITS = {"ESP32": 20, "ESP32S3": 14}  # SOC_LEDC_TIMER_BIT_WIDTH, components/soc/<chip>/soc_caps.h


def rp2_slice(freq_hz: int = 50, source_hz: int = RP2_SYS_HZ) -> tuple[int, int]:
    """``(TOP, DIV in 16ths)`` that ``machine.PWM.freq(freq_hz)`` gives an rp2 slice (ports/rp2/machine_pwm.c,
    ``mp_machine_pwm_freq_set``: the smallest divider that keeps TOP under 65534, then TOP rounded): (65465, 611)
    at 50 Hz, one count 611 / 16 / 125 MHz = 0.3055 µs."""
    top_max = 65534
    if (source_hz + freq_hz // 2) // freq_hz < top_max:
        return (source_hz + freq_hz // 2) // freq_hz - 1, 16
    div16 = -(-16 * source_hz // (top_max * freq_hz))  # get_slice_hz_ceil
    return (16 * source_hz + div16 * freq_hz // 2) // (div16 * freq_hz) - 1, div16  # get_slice_hz_round


def ledc_bits(chip: str, freq_hz: int = 50) -> int:
    """The LEDC duty resolution (bits) MicroPython's esp32 ``machine.PWM`` picks at ``freq_hz`` on ``chip``
    (``find_suitable_duty_resolution``): 16 on the ESP32, 13 on the ESP32-S3 at 50 Hz."""
    width = LEDC_TIMER_BITS[chip]
    div = (LEDC_SRC_HZ + freq_hz // 2) // freq_hz
    bits = min(div.bit_length() - 1, width)
    bits = min(bits, 16)
    return bits - 1 if bits >= width else bits


def outputs_survive_reset(outputs: str, *, oe_wired: bool = False) -> bool:
    """True when the servos keep their pulses through an MCU reset: on a PCA9685 (its own oscillator and registers
    outlive the MCU) whose OE input is not wired; the MCU's own PWM stops (its pins go back to inputs)."""
    return outputs == "pca9685" and not oe_wired


class TimerModel:
    """``machine.Timer`` as a port makes it, for ``hanoifw.board.grip_timer_maker``: refuses what the port refuses
    (an id it has not, ``hard`` where it has no such keyword or no hard timers); a timer made is handed to
    ``start(timer)`` (the board loop runs it on virtual time)."""

    PERIODIC = 1
    ONE_SHOT = 0

    def __init__(self, port: PortModel, start: Callable[[TimerModel], None]) -> None:
        self.port = port
        self._start = start
        self.period_ms = 0
        self.callback: Callable[[Any], None] | None = None
        self.hard = False
        self.is_running = False

    def __call__(self, timer_id: int, *, mode: int, period: int, callback: Any, **keywords: Any) -> TimerModel:
        """``machine.Timer(timer_id, mode=..., period=..., callback=..., [hard=...])``: a new running timer."""
        port = self.port
        if timer_id not in port.timer_ids:
            raise ValueError("Timer doesn't exist" if port.platform == "rp2" else "invalid Timer number")
        if set(keywords) - {"hard"} or (keywords and port.micropython[:2] < port.hard_keyword_from):
            raise TypeError("extra keyword arguments given")
        hard = bool(keywords.get("hard", False))
        if hard and not port.hard_timers:
            raise ValueError("hard Timers are not implemented")
        if mode != self.PERIODIC or period <= 0:
            raise ValueError("the simulated board runs periodic timers only")
        timer = TimerModel(port, self._start)
        timer.period_ms, timer.callback, timer.hard, timer.is_running = period, callback, hard, True
        self._start(timer)
        return timer

    def deinit(self) -> None:
        """Stop the timer."""
        self.is_running = False


@dataclass(frozen=True)
class PortModel:
    """One MicroPython port on one chip (module docstring): ``tick_us`` and ``tick_phase_us`` place the scheduler
    ticks at which a wait wakes by itself (esp32: FreeRTOS; 0: none, a wait sleeps until its whole ms have passed,
    as on rp2); ``input_wakes`` says whether serial input wakes a waiting loop at once (USB) or is seen at the next
    wake (a UART); ``outputs`` names the chip's own servo output (its resolution:
    :func:`hanoibot.motion.drivers.output_us`)."""

    name: str
    chip: str
    platform: str
    tick_us: int
    tick_phase_us: int
    input_wakes: bool
    console: str
    outputs: str
    timer_ids: tuple[int, ...]
    hard_timers: bool
    hard_keyword_from: tuple[int, int]
    micropython: tuple[int, int, int] = DEFAULT_MICROPYTHON

    def timer_class(self, start: Callable[[TimerModel], None]) -> TimerModel:
        """This port's ``machine.Timer`` (a callable like the class), handing each timer made to ``start``."""
        return TimerModel(self, start)

    def with_micropython(self, version: tuple[int, int, int]) -> PortModel:
        """The same port on another MicroPython version."""
        return PortModel(**{**self.__dict__, "micropython": version})

    def describe(self) -> str:
        """One line for people: the chip, MicroPython version, console and tick."""
        version = ".".join(str(part) for part in self.micropython)
        waits = f"waits end at {self.tick_us / 1000:g} ms ticks" if self.tick_us else "waits end to the ms"
        return f"{self.chip} on MicroPython {version} ({self.console}; {waits})"


#: Every port model by the name ``sim://?port=`` takes.
PORTS: dict[str, PortModel] = {
    "rp2": PortModel(
        name="rp2",
        chip="RP2040",
        platform="rp2",
        tick_us=0,
        tick_phase_us=0,
        input_wakes=True,
        console="native USB",
        outputs="rp2",
        timer_ids=(-1,),
        hard_timers=True,
        hard_keyword_from=(1, 26),
    ),
    "esp32": PortModel(
        name="esp32",
        chip="ESP32",
        platform="esp32",
        tick_us=ESP32_TICK_US,
        tick_phase_us=ESP32_TICK_PHASE_US,
        input_wakes=False,
        console="UART through a USB-UART bridge",
        outputs="esp32",
        timer_ids=(0, 1, 2, 3),
        hard_timers=False,
        hard_keyword_from=(1, 27),
    ),
    "esp32s3": PortModel(
        name="esp32s3",
        chip="ESP32S3",
        platform="esp32",
        tick_us=ESP32_TICK_US,
        tick_phase_us=ESP32_TICK_PHASE_US,
        input_wakes=True,
        console="native USB",
        outputs="esp32s3",
        timer_ids=(0, 1, 2, 3),
        hard_timers=False,
        hard_keyword_from=(1, 27),
    ),
}


def port_model(name: str, micropython: str | None = None) -> PortModel:
    """The port model ``name`` (``sim://?port=``), on MicroPython ``micropython`` ("1.26", "1.27.0"; None: the
    default); ConfigError names a bad value and the choices."""
    model = PORTS.get(name)
    if model is None:
        raise ConfigError(f"sim option port={name!r} is unknown: expected one of {', '.join(PORTS)}")
    if micropython is None:
        return model
    parts = micropython.split(".")
    if not (2 <= len(parts) <= 3 and all(part.isdigit() for part in parts)):
        raise ConfigError(f"sim option micropython={micropython!r} is invalid: expected a version such as 1.26")
    major, minor, patch = (int(part) for part in [*parts, "0"][:3])
    return model.with_micropython((major, minor, patch))
