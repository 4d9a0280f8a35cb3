"""gradedesk serve: the grading desk in browsers (textual-serve), every session on one shared store.

textual-serve runs one fixed shell command for every browser that connects and passes it nothing from the URL, so the
served desk asks each person's name on its first screen. The command is made here from the store and the run alone,
each shell-quoted: no name, nothing a browser sends, ever reaches a command line. There is no login: it listens on
loopback unless told otherwise, and says in one line that anyone who can reach another host's port can grade.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys

ORDER = 38


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "serve", parents=[common], help="serve the grading desk to browsers (each person types their name)",
        description="Serve the grading desk at http://HOST:PORT with textual-serve. Each browser gets its own desk on "
                    "the same store (WAL: sessions grade at once, as terminal desks do) and first asks the person's "
                    "name. There is no login: keep the default loopback host, or serve on a network only where "
                    "everyone who can reach the port may grade.")
    p.add_argument("--run", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.add_argument("--host", default="127.0.0.1", metavar="HOST",
                   help="address to listen on (default 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8000, metavar="PORT", help="port to listen on (default 8000)")
    p.add_argument("--public-url", metavar="URL",
                   help="the address browsers open, when it is not http://HOST:PORT (behind a proxy; with --host "
                        "0.0.0.0 the default is this machine's name)")
    p.set_defaults(handler=run)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def served_command(store: str, run_id: int) -> str:
    """The one shell command textual-serve runs per browser: the store's path and the run id, quoted."""
    return shlex.join([sys.executable, "-m", "gradedesk.tui.served", "--store", store, "--run", str(run_id)])


def run(args: argparse.Namespace) -> int:
    import os
    import socket

    from gradedesk.core.errors import UserError
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    if not 0 < args.port < 65536:
        raise UserError(f"--port {args.port}: a port from 1 to 65535")
    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
    try:  # a taken port is one clear line here, not a traceback from inside the server
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as exc:
        raise UserError(f"--host {args.host} --port {args.port}: cannot listen there "
                        f"({os.strerror(exc.errno) if exc.errno else exc})") from None
    if not is_loopback(args.host):
        print(f"gradedesk: warning: serving on {args.host}:{args.port} with no login: anyone who can reach this port "
              "can grade", file=sys.stderr)
    from textual_serve.server import Server

    public_url = args.public_url
    if public_url is None and args.host in ("0.0.0.0", "::"):  # the page's websocket must name a reachable host
        public_url = f"http://{socket.getfqdn()}:{args.port}"
    Server(served_command(os.path.abspath(args.store), run_id), host=args.host, port=args.port, title="gradedesk",
           public_url=public_url).serve()
    return 0
