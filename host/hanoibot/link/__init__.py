"""The host end of the serial link: :class:`~hanoibot.link.session.Session` over any pyserial URL.

The simulator URLs (``sim://``, ``vpico://``) are registered by importing :mod:`hanoibot.link.urlhandler`, a layer
above this one.
"""
