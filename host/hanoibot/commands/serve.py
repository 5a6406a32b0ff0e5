"""``hanoibot serve``: the browser console on a local web server (play the puzzle; watch and drive the arm).

Binds 127.0.0.1 by default and then answers only to loopback names (``Host: localhost``, ``127.0.0.1``, ``[::1]``):
a web page cannot reach it through a DNS name of its own (DNS rebinding). Bound to any other address it answers
only to this machine's names and addresses, and the URL carries a random token that every request and WebSocket
must present (the page moves it into a cookie on its first load); ``--bind 0.0.0.0`` prints one URL per interface
address. The server opens only the port (``--port``), robot config (``--config``) and journal
folder (``--journal-dir``) named here. Ctrl-C stops the server; the board's watchdog then holds the arm.
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Any

from ..cli_support.plan_options import whole_number
from ..cli_support.port_options import add_config_argument, add_port_argument

EPILOG = """examples:
  hanoibot serve                                   the console on http://127.0.0.1:8765/ (arm: the default port)
  hanoibot serve --open                            the same, and open it in the browser
  hanoibot serve --port /dev/ttyACM0               drive a real board from the page
  hanoibot serve --journal-dir runs/               journal every run started from the page (resume them)
  hanoibot serve --bind 0.0.0.0 --http-port 9000   reachable from the network: prints a URL with a token

port and config: --port/--config, else $HANOIBOT_PORT/$HANOIBOT_CONFIG, else hanoibot init's, else sim:// and
the shipped robot
"""


def register(subparsers: Any) -> None:
    """Add the ``serve`` sub-command."""
    parser = subparsers.add_parser(
        "serve",
        help="the browser console: play the puzzle, watch and drive the arm",
        description="Start a local web server with the hanoibot console and print its URL.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_port_argument(parser, "of the arm")
    add_config_argument(parser)
    parser.add_argument("--bind", metavar="ADDR", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--http-port", metavar="N", default="8765", help="TCP port of the page (8765; 0 = any)")
    parser.add_argument("--journal-dir", metavar="DIR", help="write a journal per run into DIR (for resume)")
    parser.add_argument("--open", action="store_true", help="open the page in the web browser")
    parser.set_defaults(run=run)


def listen(bind: str, http_port: int) -> socket.socket:
    """A listening TCP socket on ``bind``:``http_port``; OSError (one line at the CLI) if it is taken."""
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bind, http_port))
    except OSError as err:
        sock.close()
        raise OSError(err.errno, f"cannot listen on {bind}:{http_port}: {err.strerror}") from None
    sock.listen(64)
    return sock


def run(args: argparse.Namespace) -> int:
    """Check the options, start the server, print the URL, serve until Ctrl-C."""
    import uvicorn

    from ..config import load_config
    from ..config.user import resolve_config
    from ..console.addresses import allowed_hosts, listening_hosts
    from ..console.app import ConsoleSettings, make_app
    from ..console.guard import is_loopback, new_token
    from ..console.limits import MAX_WS_MESSAGE_BYTES
    from ..errors import ConfigError

    http_port = whole_number(args.http_port, "--http-port", minimum=0, maximum=65535) or 0
    load_config(args.config)  # a bad config is one line and exit 2 before anything listens
    if args.journal_dir is not None:
        from pathlib import Path

        if not Path(args.journal_dir).is_dir():
            raise ConfigError(f"--journal-dir {args.journal_dir!r} is not a folder: create it first")
    token = None if is_loopback(args.bind) else new_token()
    sock = listen(args.bind, http_port)
    query = f"?token={token}" if token else ""
    urls = [f"http://{host}:{sock.getsockname()[1]}/{query}" for host in listening_hosts(args.bind)]
    settings = ConsoleSettings(args.port, args.config, token, args.journal_dir, tuple(allowed_hosts(args.bind)))
    config = uvicorn.Config(
        make_app(settings),
        log_level="warning",
        lifespan="on",
        ws="websockets-sansio",
        ws_max_size=MAX_WS_MESSAGE_BYTES,
    )
    server = uvicorn.Server(config)
    robot = resolve_config(args.config)
    print(f"hanoibot console on {urls[0]}  (arm: {args.port}; robot: {robot}; Ctrl-C stops)")
    for url in urls[1:]:
        print(f"                 or {url}")
    if token:
        print("bound off localhost: the URL's token is required; share it only with people allowed to move the arm")
    sys.stdout.flush()
    if args.open:
        import webbrowser

        webbrowser.open(urls[0])
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    print("hanoibot console stopped", file=sys.stderr)
    return 0
