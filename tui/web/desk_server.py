"""DeskServer: textual-serve's `Server`, subclassed so that only the desk's own people reach a desk.

textual-serve starts one process per browser connection and checks nothing: any Origin may open its websocket, any
number of desks start, its page loads a font from Google. The subclass keeps what textual-serve does well (the process
per connection, the websocket protocol, its static files) and replaces the routes and the page:

- the websocket refuses an Origin that is not the desk's own address (`allowed_origins`), so a page on another site
  open in a grader's browser cannot drive a desk (nor can a page reached by DNS rebinding: its Origin names its own
  host); a request without an Origin (not a browser) is refused too;
- at most `max_desks` desks run at once: past that, the page and the websocket answer 503 with `FULL`;
- the page is gradedesk's own (templates/app_index.html): its font comes from the static folder and a
  Content-Security-Policy of 'self' keeps the page from asking any other host for anything;
- with a token (serving beyond loopback), every route lives under /TOKEN/: without the URL printed at start, nothing is
  served (404, the same as a wrong path).

- when serve stops (ctrl-c, SIGTERM), every desk it started ends with it: its websocket is closed, so the desk is told
  to quit and its browser learns the server went away; a desk still running after `STOP_GRACE` seconds is killed.
  textual-serve would wait up to a minute for open browsers and leave their desks running if it were killed first
  (the desk's command starts with `exec`, so the process started is the desk, not a shell around it). A desk whose
  server is killed outright ends by itself when its input closes (tui/web/served_driver.py).

No download route: the desk delivers no files (textual-serve's page builds that URL without the token's prefix).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int
from yarl import URL

TEMPLATES = Path(__file__).parent / "templates"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; font-src 'self'; connect-src 'self' {ws}; frame-ancestors 'none'; base-uri 'none'; "
       "form-action 'none'")
STOP_GRACE = 10.0  # seconds the desks get to quit (their last writes stored, leases freed) once serve stops


def origin_of(url: str) -> str:
    """A trusted address's origin as a browser writes it in an Origin header: scheme://host[:port], lowercase, no
    default port. An Origin header is compared with these as a string, never parsed."""
    return str(URL(url).origin()).lower()


def allowed_origins(public_url: str, port: int, loopback: bool) -> set[str]:
    """The origins whose pages may open a desk: the address browsers are told to open and, when serving on loopback,
    this machine's other names for it at the same port."""
    allowed = {origin_of(public_url)}
    if loopback:
        allowed |= {origin_of(f"http://{name}:{port}") for name in LOOPBACK_NAMES}
    return allowed


class DeskSession(AppService):
    """textual-serve's session of one browser, holding on to its desk's process so serve can end it."""

    process: asyncio.subprocess.Process | None = None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        self.process = await super()._open_app_process(width, height)
        return self.process


def full_text(max_desks: int) -> str:
    return (f"gradedesk: all {max_desks} desks of this server are in use. Try again once someone closes theirs "
            f"(the person serving can allow more with `gradedesk serve --max-desks N`).")


class DeskServer(Server):
    def __init__(self, command: str, *, host: str, port: int, public_url: str, max_desks: int, token: str | None,
                 loopback: bool) -> None:
        super().__init__(command, host=host, port=port, title="gradedesk", public_url=public_url.rstrip("/"),
                         templates_path=TEMPLATES)
        self.max_desks = max_desks
        self.desks = 0  # live websocket sessions, each a desk process (changed only on the event loop)
        self.sessions: dict[web.WebSocketResponse, DeskSession] = {}  # the open desks, each ended when serve stops
        self.prefix = f"/{token}" if token else ""
        self.origins = allowed_origins(self.public_url, port, loopback)

    @property
    def url(self) -> str:
        """The address to open (with the token, when there is one): printed once at start."""
        return f"{self.public_url}{self.prefix}/"

    async def _make_app(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes([
            web.get(f"{self.prefix}/", self.handle_index, name="index"),
            web.get(f"{self.prefix}/ws", self.handle_websocket, name="websocket"),
            web.static(f"{self.prefix}/static", self.statics_path, name="static"),
        ])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints a banner and the command (the store's path) to stdout: stderr gets one line."""
        print(f"gradedesk: serving the desk at {self.url} (ctrl-c stops it)", file=sys.stderr, flush=True)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        if self.desks >= self.max_desks:
            return web.Response(status=503, text=full_text(self.max_desks), headers={"Retry-After": "30"})
        response = await super().handle_index(request)
        ws = f"ws{self.public_url.removeprefix('http')}"  # http->ws, https->wss: the desk's own websocket only
        response.headers["Content-Security-Policy"] = CSP.format(ws=ws)
        response.headers["Referrer-Policy"] = "no-referrer"  # the token is in the URL: never sent on elsewhere
        return response

    def origin_refused(self, request: web.Request) -> str | None:
        origin = request.headers.get("Origin")
        if origin is None:
            return "no Origin: a desk opens only from its own page"
        if origin.lower() not in self.origins:
            return (f"a page at another address ({origin!r}) may not open a desk; open {self.public_url} (or start "
                    f"serve with --public-url set to the address people open)")
        return None

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """textual-serve's own handler, with the refusals first and each session kept in `sessions` until it ends."""
        refused = self.origin_refused(request)
        if refused is not None:
            raise web.HTTPForbidden(text=f"gradedesk: {refused}")
        if self.desks >= self.max_desks:
            raise web.HTTPServiceUnavailable(text=full_text(self.max_desks))
        self.desks += 1  # no await since the check: two connections cannot both take the last desk
        websocket = web.WebSocketResponse(heartbeat=15)

        async def close() -> None:  # the desk said it ended
            await websocket.close()

        service = DeskSession(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                              close=close, download_manager=self.download_manager, debug=self.debug)
        self.sessions[websocket] = service
        try:
            await websocket.prepare(request)
            await service.start(to_int(request.query.get("width", "80"), 80),
                                to_int(request.query.get("height", "24"), 24))
            try:
                await self._process_messages(websocket, service)
            finally:
                await service.stop()
        except asyncio.CancelledError:
            await websocket.close()
        finally:
            del self.sessions[websocket]
            self.desks -= 1
        return websocket

    async def on_shutdown(self, app: web.Application) -> None:
        """serve stops: close every desk's websocket (its session then tells the desk to quit and waits for it), give
        the desks STOP_GRACE seconds, then kill what is left, so no desk outlives its server."""
        desks = [process for service in self.sessions.values() if (process := service.process) is not None]
        closing = [websocket.close(code=WSCloseCode.GOING_AWAY, message=b"gradedesk serve stopped")
                   for websocket in list(self.sessions)]  # all at once: a browser slow to answer delays no other
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*closing, *(p.wait() for p in desks)), STOP_GRACE)
        for process in desks:
            if process.returncode is None:
                process.kill()
                await process.wait()
