"""pyserial URL handlers of hanoibot (``sim://``), found through ``serial.protocol_handler_packages``."""
