"""The host end of the serial link: :class:`~hanoibot.link.session.Session` over any pyserial URL.

Importing this package registers the ``sim://`` URL handler with pyserial.
"""

import serial

if "hanoibot.link.urlhandler" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("hanoibot.link.urlhandler")
