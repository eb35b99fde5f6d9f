"""The ``elements-ai serve`` command: a local web page to play the games against bots."""

from __future__ import annotations

import argparse

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")

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
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    print(f"elements-ai serve: the page is at {url} (Ctrl-C stops)", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0
