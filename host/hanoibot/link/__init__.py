"""The host end of the serial link: :class:`~hanoibot.link.session.Session` over any pyserial URL.

The link imports nothing of the simulator: the simulator's URLs (``sim://``, ``vpico://``) are offered to it by
:mod:`hanoibot.sim.urlhandler` (:mod:`~hanoibot.link.port_schemes`) when the program imports that
(:mod:`hanoibot.ops.ports`), and an open port says itself whether a simulated board is behind it
(:class:`~hanoibot.link.board_port.BoardPort`).
"""
