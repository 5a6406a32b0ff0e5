"""Board wiring for main.py: edit this file (only this one) to match your board, then copy both to the board.

Every pin table is keyed on the chip, as MicroPython names it at the end of ``os.uname().machine``: "ESP32"
(classic ESP32), "ESP32S3", "RP2040" (Raspberry Pi Pico). For another chip (ESP32-S2, ESP32-C3, RP2350), add an
entry to each table: main.py stops with a message naming the chip and the table when one is missing.
Servos are driven either straight from ``machine.PWM`` pins (SERVO_DRIVER = "pwm"), by a PCA9685 board over I2C
(SERVO_DRIVER = "pca9685"), or are Feetech STS/SCS serial bus servos on a UART (SERVO_DRIVER = "bus"), which report
where they are. Channel order everywhere: base, shoulder, elbow, wrist, gripper.
See hardware/README.md for the wiring of every pin named here.
"""

SERVO_DRIVER = "pwm"  # "pwm", "pca9685" or "bus"
SERVO_FREQ_HZ = 50  # hobby servo frame rate

# GPIO numbers of the 5 servo signal wires (SERVO_DRIVER = "pwm"). ESP32: not the strapping pins 0, 2, 5, 12, 15;
# its GPIO 14 (MTMS) comes out of reset with a weak pull-up, so it idles high until main.py drives it: give it a
# 10k pull-down, not 100k (hardware/README.md, "Wiring"), or use GPIO 32/33.
# ESP32-S3: not the strapping pins 0, 3, 45, 46, nor USB (19, 20) or the flash/PSRAM pins (26-37).
# RP2040, RP2350: GPIO n is output A (even n) or B (odd n) of PWM slice (n >> 1) & 7 (the RP2350B's GPIO 32-47:
# slice 8 + ((n >> 1) & 3)); no two servos on one output (GPIO n and n + 16 share one), main.py refuses them.
PWM_PINS = {
    "ESP32": (13, 14, 27, 26, 25),
    "ESP32S3": (10, 11, 12, 13, 14),
    "RP2040": (2, 3, 4, 5, 6),
}

# PCA9685 over I2C (SERVO_DRIVER = "pca9685"): bus id, SCL and SDA GPIOs, 7-bit address; PCA9685_CHANNELS maps our
# channel 0..4 to the PCA9685 outputs 0..15.
I2C_BUS = {
    "ESP32": (0, 22, 21),
    "ESP32S3": (0, 18, 17),
    "RP2040": (0, 17, 16),
}
I2C_FREQ_HZ = 400000
PCA9685_ADDRESS = 0x40
PCA9685_CHANNELS = (0, 1, 2, 3, 4)
PCA9685_OSC_HZ = 25000000  # the chip's oscillator: measure it (hardware/README.md, "PCA9685 clock") and set it here
# GPIO wired to the PCA9685's OE input (pulled up to 3.3 V), or None if OE is tied to GND. Never a strapping pin:
# a pull-up on ESP32 GPIO 12 (ESP32-S3 GPIO 45) selects 1.8 V flash and the module does not boot; GPIO 0, 2, 5, 15
# (S3: 0, 3, 46) pick the boot mode. Free ones: ESP32 GPIO 4, ESP32-S3 GPIO 6, Pico GP18.
PCA9685_OE_PIN = None

# Feetech STS/SCS bus servos (SERVO_DRIVER = "bus"): UART id, TX and RX GPIOs. Wiring (hardware/README.md, "Bus
# servos"): TX through a 1 kOhm resistor onto the servos' data line, RX straight on it (BUS_ECHO = True: everything
# sent comes back and is dropped), or a 74HC126-type buffer whose direction input is BUS_DIR_PIN (high: sending).
BUS_UART = {
    "ESP32": (1, 17, 16),  # UART1 on free GPIOs (its default pins 9/10 are the flash's)
    "ESP32S3": (1, 17, 18),
    "RP2040": (0, 0, 1),  # UART0 on GP0/GP1
}
BUS_BAUD = 1000000  # the STS factory rate; each servo's Return_Delay_Time must leave time to turn the line around
BUS_IDS = (1, 2, 3, 4, 5)  # bus id of each channel (the SO-101 from lerobot: shoulder_pan 1 .. gripper 6)
BUS_STEPS_PER_TURN = 4096  # STS/SMS (magnetic encoder): 4096; SCS (potentiometer): 1024
BUS_ECHO = True  # the line gives back what is sent (TX through a resistor, or a buffer whose RX sees the line)
BUS_DIR_PIN = None  # GPIO of a tri-state buffer's direction input, or None (resistor wiring)

# Grip sensor: the gripper servo's supply current (0.1 ohm shunt, gain-50 amplifier, RC filter) on an ADC pin.
# None = no sensor fitted (then set grip_sensor = false in robot.toml). With SERVO_DRIVER = "bus" the gripper's own
# load is the grip sensor and this pin is not used.
GRIP_SENSOR_PIN = {
    "ESP32": 34,  # ADC1 (ADC2 does not work while Wi-Fi runs)
    "ESP32S3": 4,  # ADC1
    "RP2040": 26,  # ADC0
}
# Rail sense: the servo rail after the e-stop switch through a 15k/20k divider (100 nF across the 20k) into a GPIO.
# POWER_LOST latches after 3 low samples in a row (one per control step). None = not wired.
RAIL_SENSE_PIN = {
    "ESP32": 35,
    "ESP32S3": 5,
    "RP2040": 22,
}

CHANNELS = 5
QUEUE_DEPTH = 8  # motion segments the board buffers
HOST_WATCHDOG_MS = 300  # host silence while moving -> hold pose, latch HOST_LOST
CONTROL_PERIOD_MS = 10  # main loop at 100 Hz (interpolation needs >= 50 Hz)
ENABLE_STAGGER_MS = 200  # outputs switch on one at a time, this far apart (start-up current of one servo at a time)
ENABLE_ORDER = (4, 3, 2, 1, 0)  # light joints first: gripper, wrist, elbow, shoulder, base
# machine.WDT timeout, started at the first CONFIG; None disables it (bench work). ESP32: any whole ms (the port
# takes ms as they are since v1.21; main.py needs v1.26 anyway); RP2040: at most 8388 ms.
HARDWARE_WDT_MS = 2000
