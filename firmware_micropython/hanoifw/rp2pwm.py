"""The PWM block of an RP2040 or RP2350 at its own addresses: which slice a GPIO is on, and starting slices together.

Register addresses are the chip's own (pico-sdk 2.2.0 ``hardware_regs``): on the RP2350 the RP2040's PWM base
0x40050000 is PLL_SYS, so no RP2040 address is ever used there.
"""

try:
    from micropython import const
except ImportError:  # CPython (tests, the host): const() is only an optimisation hint

    def const(value: int) -> int:
        return value


# Per chip: PWM block base address, offset of EN (aliases every slice's CSR_EN bit), number of slices.
# pico-sdk 2.2.0: src/<chip>/hardware_regs/include/hardware/regs/addressmap.h (PWM_BASE), regs/pwm.h
# (PWM_EN_OFFSET), hardware/platform_defs.h (NUM_PWM_SLICES).
PWM_BLOCKS = {
    "RP2040": (0x40050000, 0xA0, 8),
    "RP2350": (0x400A8000, 0xF0, 12),
}
SLICE_STRIDE = const(0x14)  # PWM_CH1_CSR_OFFSET: each slice's CSR, DIV, CTR, CC, TOP
CSR = const(0x00)
DIV = const(0x04)
CTR = const(0x08)
CC = const(0x0C)  # A in bits 0-15, B in bits 16-31
TOP = const(0x10)


def pwm_block(chip: str):
    """``(base, en_offset, slices)`` of ``chip``'s PWM block; ValueError for a chip that is no RP2."""
    block = PWM_BLOCKS.get(chip)
    if block is None:
        raise ValueError("chip %s: no RP2 PWM block (expected one of %s)" % (chip, ", ".join(sorted(PWM_BLOCKS))))
    return block


def slice_of(chip: str, pin: int) -> int:
    """The PWM slice of GPIO ``pin`` on ``chip`` (pico-sdk ``PWM_GPIO_SLICE_NUM``: GPIO 0-31 on slice
    (n >> 1) & 7; the RP2350B's GPIO 32-47 on 8 + ((n >> 1) & 3)); ValueError for a pin the chip has not."""
    slices = pwm_block(chip)[2]
    if 0 <= pin < 32:
        return (pin >> 1) & 7
    if slices > 8 and pin < 48:
        return 8 + ((pin >> 1) & 3)
    raise ValueError("GPIO %r: chip %s has no PWM slice for it" % (pin, chip))


def rp2_slices(chip: str, pins) -> int:
    """The bit mask of the PWM slices that GPIO ``pins`` use on ``chip``."""
    mask = 0
    for pin in pins:
        mask |= 1 << slice_of(chip, pin)
    return mask


def align_rp2_slices(mem32, chip: str, pins) -> None:
    """Start the PWM slices of ``pins`` on ``chip`` together: stop them (one EN write), zero their counters, start
    them again with one EN write. ``machine.PWM`` enables each slice on its own, so their frames start at different
    times; aligned, every slice wraps on the same cycle (they share the 50 Hz divider and TOP). ``mem32`` is
    ``machine.mem32``. Call it before any output is on."""
    base, en_offset, slices = pwm_block(chip)
    mask = rp2_slices(chip, pins)
    enabled = mem32[base + en_offset]
    mem32[base + en_offset] = enabled & ~mask
    for slice_number in range(slices):
        if mask & (1 << slice_number):
            mem32[base + SLICE_STRIDE * slice_number + CTR] = 0
    mem32[base + en_offset] = (enabled & ~mask) | mask
