"""A local OpenAI-compatible chat-completions server for tests and benchmarks.

It stands in for the endpoints gradedesk talks to in real use (OpenAI, vLLM, Ollama, llama.cpp server, any server that
speaks `POST /v1/chat/completions`): there is no model or network here, so tests run the real `openai` client against
this server over real HTTP on 127.0.0.1. It answers with whatever `.responder` returns for the request body, reports
token usage (exact tiktoken counts) unless `.usage` is False, and injects the faults real endpoints produce, one per
request, in the order they were queued:

    server.fail_next(status=429, times=2)   # HTTP error replies (429 rate limit, 500 server error, ...)
    server.delay_next(seconds=2.0)          # a slow reply (drives client timeouts)
    server.malformed_next()                 # 200 with a body that is not JSON
    server.wrong_schema_next()              # 200 with valid JSON that has no "choices"

`fixed_delay` delays every reply (the throughput benchmark uses it). Every received JSON body is kept in `.requests`,
its headers (lower-cased names) in `.headers`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from core.tokens import count_tokens


@dataclass
class Fault:
    kind: str  # "status", "delay", "malformed", "wrong_schema"
    status: int = 500
    seconds: float = 0.0


def echo_responder(body: dict) -> str:
    """The default reply: deterministic and visibly derived from the request (the last user message)."""
    user = [m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user"]
    last = user[-1] if user else ""
    return f"echo: {last[:200]}"


class ChatServer:
    def __init__(self, responder: Callable[[dict], str] = echo_responder, usage: bool = True,
                 fixed_delay: float = 0.0):
        self.responder = responder
        self.usage = usage
        self.fixed_delay = fixed_delay
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []  # request headers, in the order of .requests
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._counter = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # a short poll interval: shutdown() waits up to one interval, and tests start many servers
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="chat-server", daemon=True)
        host, port = self._httpd.server_address[:2]
        self.base_url = f"http://{host}:{port}/v1"

    # fault queue -------------------------------------------------------------------------------------------------------
    def fail_next(self, status: int = 500, times: int = 1) -> None:
        self._queue(Fault("status", status=status), times)

    def delay_next(self, seconds: float, times: int = 1) -> None:
        self._queue(Fault("delay", seconds=seconds), times)

    def malformed_next(self, times: int = 1) -> None:
        self._queue(Fault("malformed"), times)

    def wrong_schema_next(self, times: int = 1) -> None:
        self._queue(Fault("wrong_schema"), times)

    def _queue(self, fault: Fault, times: int) -> None:
        with self._lock:
            self._faults.extend([fault] * times)

    def _take(self, body: dict, headers: dict[str, str]) -> tuple[Fault | None, int]:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self._counter += 1
            return (self._faults.popleft() if self._faults else None), self._counter

    @property
    def pending_faults(self) -> int:
        with self._lock:
            return len(self._faults)

    # lifecycle ---------------------------------------------------------------------------------------------------------
    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # replies -----------------------------------------------------------------------------------------------------------
    def completion(self, body: dict, number: int) -> dict:
        text = self.responder(body)
        reply: dict = {
            "id": f"chatcmpl-test-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
        }
        if self.usage:
            prompt = sum(count_tokens(str(m.get("content") or "")) for m in body.get("messages", []))
            completion = count_tokens(text)
            reply["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                              "total_tokens": prompt + completion}
        return reply


def _handler_for(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # headers and body go out as two writes; with Nagle on, the body waits ~40 ms for a delayed ACK per reply
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: object) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}).encode())
                return
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                self._send(400, json.dumps({"error": {"message": "request body is not JSON"}}).encode())
                return
            fault, number = server._take(body, {k.lower(): v for k, v in self.headers.items()})
            delay = server.fixed_delay + (fault.seconds if fault and fault.kind == "delay" else 0.0)
            if delay:
                time.sleep(delay)
            if fault and fault.kind == "status":
                error = {"error": {"message": f"injected HTTP {fault.status}", "type": "test_fault"}}
                self._send(fault.status, json.dumps(error).encode())
            elif fault and fault.kind == "malformed":
                self._send(200, b'{"id": "chatcmpl-broken", "choices": [')
            elif fault and fault.kind == "wrong_schema":
                self._send(200, json.dumps({"id": "chatcmpl-odd", "object": "chat.completion"}).encode())
            else:
                self._send(200, json.dumps(server.completion(body, number)).encode())

        def _send(self, status: int, payload: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out and went away: expected
                pass

    return Handler
