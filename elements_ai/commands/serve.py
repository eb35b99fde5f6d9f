"""The ``elements-ai serve`` command: a local web page to play the games against bots."""

from __future__ import annotations

import argparse

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
GRACE = 1  # seconds open requests get when the server stops
INTERRUPTED = 130  # the exit status of a Ctrl-C (as the elements-ai command's)

EXAMPLES = f"""The page lets you pick a game (a variant or any game string), your seat and a bot
for each other seat (default ismcts), then play by clicking the picture or the
moves under it; the bots' moves are shown one at a time, and the finished game can
be downloaded as a record that `elements-ai replay` reads. Ctrl-C stops the server.

examples:
  elements-ai serve                       the page at http://{DEFAULT_HOST}:{DEFAULT_PORT}/
  elements-ai serve --port 8080 --open    on port 8080, opened in the web browser

It needs the web extra: pip install "elements-ai[web]".
"""


def register(commands) -> None:
    parser = commands.add_parser(
        "serve",
        help="a local web page to play the games against bots",
        description=(
            "Serves a web page on this machine where you play any game against bots: pick the game, your seat "
            "and the bots, click your moves, watch the bots' moves one at a time, download the game record."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}: this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port to listen on (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--open", action="store_true", help="open the page in the web browser")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..core.params import ParameterError

    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        raise ParameterError('the web page needs the web extra: pip install "elements-ai[web]"') from None
    from ..web.app import create_app, listen

    sock = listen(args.host, args.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    # On this machine only, requests must name it: a site whose DNS name is rebound to
    # 127.0.0.1 cannot reach the server through the visitor's browser.
    allowed = ["127.0.0.1", "localhost", "::1", "[::1]"] if args.host in LOCAL_HOSTS else None
    app = create_app(allowed_hosts=allowed)
    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            # Ctrl-C with a bot thinking ends the process at once (its move is dropped);
            # otherwise the server closes as uvicorn closes it, within GRACE.
            _end_thinking(INTERRUPTED)
            super().handle_exit(sig, frame)

    server = Server(uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=GRACE))
    print(f"elements-ai serve: the page is at {url} (Ctrl-C stops)", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        # uvicorn hands the Ctrl-C it caught back on its way out.
        _end_thinking(INTERRUPTED)
        raise
    finally:
        sock.close()
    _end_thinking(0)
    return 0


def _end_thinking(status: int) -> None:
    """Ends the process now if a bot still thinks in a worker thread (Python would wait
    for it at exit): the server is closed, and nobody waits for that move."""
    import os
    import sys
    import threading

    busy = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    if busy:
        print("elements-ai serve: stopped; a bot's move was dropped", flush=True)
        sys.stderr.flush()
        os._exit(status)
