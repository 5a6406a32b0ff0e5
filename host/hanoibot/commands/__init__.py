"""One module per ``hanoibot`` sub-command; each has ``register(subparsers)`` and ``run(args) -> int``."""
