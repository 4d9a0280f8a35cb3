"""gradedesk serve: the grading desk in browsers (textual-serve), every session on one shared store.

textual-serve runs one fixed shell command for every browser that connects and passes it nothing from the URL, so the
served desk asks each person's name on its first screen. The command is made here from the store and the run alone,
each shell-quoted: no name, nothing a browser sends, ever reaches a command line. The web server is textual-serve's,
subclassed (tui/web/desk_server.py): only pages from the desk's own address may open a desk, at most --max-desks run
at once, the page asks no other host for anything, and beyond loopback every path carries a secret token, printed once
at start. A typed name is not a login: anyone who has the URL may grade under any name; one live desk per name (the
desk's lease) keeps two people typing one name from seeing or changing each other's items.
"""

from __future__ import annotations

import argparse
import ipaddress
import secrets
import shlex
import sys

ORDER = 38


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "serve", parents=[common], help="serve the grading desk to browsers (each person types their name)",
        description="Serve the grading desk at http://HOST:PORT with textual-serve. Each browser gets its own desk on "
                    "the same store (WAL: sessions grade at once, as terminal desks do) and first asks the person's "
                    "name. Beyond loopback the address carries a secret token, printed once at start: whoever has "
                    "that URL may grade, under any name (a name is not a login).")
    p.add_argument("--run", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.add_argument("--host", default="127.0.0.1", metavar="HOST",
                   help="address to listen on (default 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=8000, metavar="PORT", help="port to listen on (default 8000)")
    p.add_argument("--public-url", metavar="URL",
                   help="the address browsers open, when it is not http://HOST:PORT (behind a proxy; with --host "
                        "0.0.0.0 the default is this machine's name)")
    p.add_argument("--max-desks", type=int, default=8, metavar="N",
                   help="desks open at once, each a process (default 8); past that the page says the desk is full")
    p.set_defaults(handler=run)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def served_command(store: str, run_id: int) -> str:
    """The one shell command textual-serve runs per browser: the store's path and the run id, quoted. `exec` puts the
    desk in the shell's place, so the process serve started is the desk itself and stopping it stops the desk."""
    return "exec " + shlex.join([sys.executable, "-m", "gradedesk.tui.served", "--store", store, "--run", str(run_id)])


def run(args: argparse.Namespace) -> int:
    import os
    import socket

    from gradedesk.core.errors import UserError
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    if not 0 < args.port < 65536:
        raise UserError(f"--port {args.port}: a port from 1 to 65535")
    if args.max_desks < 1:
        raise UserError(f"--max-desks {args.max_desks}: at least 1 desk")
    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
    try:  # a taken port is one clear line here, not a traceback from inside the server
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as exc:
        raise UserError(f"--host {args.host} --port {args.port}: cannot listen there "
                        f"({os.strerror(exc.errno) if exc.errno else exc})") from None
    loopback = is_loopback(args.host)
    token = None
    if not loopback:  # beyond this machine only the printed URL opens a desk
        token = secrets.token_urlsafe(24)
        print(f"gradedesk: serving on {args.host}:{args.port} beyond this machine: only the URL below opens a desk; give "
              "it only to people who may grade (a typed name is not a login: anyone with the URL may grade under any "
              "name)", file=sys.stderr)
    from gradedesk.tui.web.desk_server import DeskServer

    public_url = args.public_url
    if public_url is None:  # the page's websocket must name a reachable host
        shown = socket.getfqdn() if args.host in ("0.0.0.0", "::") else args.host
        public_url = f"http://{f'[{shown}]' if ':' in shown else shown}:{args.port}"
    DeskServer(served_command(os.path.abspath(args.store), run_id), host=args.host, port=args.port,
               public_url=public_url, max_desks=args.max_desks, token=token, loopback=loopback).serve()
    return 0
