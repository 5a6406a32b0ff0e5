"""``hanoibot deploy``: compile the firmware to .mpy for the board's bytecode version, copy it with mpremote's API,
check every file by its SHA-256 on the board, reset and wait for HELLO."""
