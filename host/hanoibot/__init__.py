"""hanoibot: plan the Tower of Hanoi and play it on a servo arm or its simulator."""

__version__ = "0.1.0"
