"""The simulated robot: the real firmware core on virtual servos and a virtual clock, with fault injection.

:class:`~hanoibot.sim.board.SimBoard` is the board, :class:`~hanoibot.sim.wire.FaultyWire` the cable with
injected faults, :class:`~hanoibot.sim.servos.VirtualServos` the servo bank that records its pulse history.
The arm and disk physics (``world``) plug into the board through a small hook.
"""
