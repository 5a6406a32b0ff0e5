"""The virtual Pico: the stock MicroPython rp2 image with hanoibot's firmware files on an emulated RP2040
(npm package rp2040js under Node), its servo outputs driving the simulated arm and disks. See ``process.py``."""
