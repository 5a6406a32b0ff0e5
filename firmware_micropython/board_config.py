"""Board wiring for main.py: edit this file (only this one) to match your board, then copy both to the board.

Supported: ESP32 (``sys.platform == "esp32"``) and RP2040 (``"rp2"``). Servos are driven either straight from
``machine.PWM`` pins (SERVO_DRIVER = "pwm") or by a PCA9685 board over I2C (SERVO_DRIVER = "pca9685").
Channel order everywhere: base, shoulder, elbow, wrist, gripper.
"""

SERVO_DRIVER = "pwm"  # "pwm" or "pca9685"
SERVO_FREQ_HZ = 50  # hobby servo frame rate

# GPIO numbers of the 5 servo signal wires, per platform (SERVO_DRIVER = "pwm"). ESP32: avoid strapping pins
# 0, 2, 5, 12, 15 so the servos do not twitch at boot. RP2040 (Pico): GP2..GP6.
PWM_PINS = {
    "esp32": (13, 14, 27, 26, 25),
    "rp2": (2, 3, 4, 5, 6),
}

# PCA9685 over I2C (SERVO_DRIVER = "pca9685"): bus id, SCL and SDA GPIOs per platform, 7-bit address;
# PCA9685_CHANNELS maps our channel 0..4 to the PCA9685 outputs 0..15.
I2C_BUS = {
    "esp32": (0, 22, 21),
    "rp2": (0, 17, 16),
}
I2C_FREQ_HZ = 400000
PCA9685_ADDRESS = 0x40
PCA9685_CHANNELS = (0, 1, 2, 3, 4)

CHANNELS = 5
QUEUE_DEPTH = 8  # motion segments the board buffers
HOST_WATCHDOG_MS = 300  # host silence while moving -> hold pose, latch HOST_LOST
CONTROL_PERIOD_MS = 10  # main loop at 100 Hz (interpolation needs >= 50 Hz)
HARDWARE_WDT_MS = 2000  # machine.WDT timeout, started at the first CONFIG; None disables it (bench work)
