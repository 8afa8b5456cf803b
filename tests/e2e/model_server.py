"""A model API on 127.0.0.1 that keeps every request body it is sent and answers each client with the least it
accepts: Anthropic's Messages API (Claude Code), the Gemini API (Gemini CLI), OpenAI's Responses API (Codex CLI).
A prompt that says BACKGROUND or READ is answered by a call of the client's own tool first (a background command;
reading the file the server's `read` names), so the client's tool events run as they do for a real model.
A CONNECT (a client reaching elsewhere through the proxy this server also is) is refused. It runs in a thread of
the test process, on a port the system picks, so there is no process to stop."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SUMMARY = "<analysis>a</analysis>\n<summary>The user asked about the lighthouse GPU.</summary>"
# A prompt with this in it is answered, in Anthropic's API, by a call of the Bash tool in the background: Claude
# Code then sends the command's notice as a prompt of its own when the command ends.
BACKGROUND = "(run it in the background)"
BACKGROUND_CALL = {"command": "sleep 1; echo done", "description": "wait", "run_in_background": True}
# A prompt with this in it is answered by a call of the Read tool on the file the server's `read` names.
READ = "(read the file)"


class ModelServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.refused: list[str] = []
        self.usage = 50  # the input tokens each answer reports: raised to make a client compact
        self.read = ""  # the file a READ prompt has the model read
        self._lock = threading.Lock()
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    def keep(self, path: str, body: Any) -> int:
        with self._lock:
            self.requests.append({"t": time.time(), "path": path, "body": body})
            return len(self.requests)

    def since(self, n: int) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.requests[n:])


class _Handler(BaseHTTPRequestHandler):
    owner: ModelServer
    protocol_version = "HTTP/1.1"
    n = 0

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (the base class's name)
        pass

    def do_CONNECT(self) -> None:  # noqa: N802
        self.owner.refused.append(self.path)
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802
        self._json(200 if self.path.split("?")[0].endswith("/models") else 404,
                   {"object": "list", "data": [{"id": "fake-model", "object": "model"}], "models": []})

    def do_HEAD(self) -> None:  # noqa: N802  (a client's check that the API is there)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        raw = self._body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        self.n = self.owner.keep(path, body)  # each answer's own id: a client tells its messages apart by it
        usage = self.owner.usage
        if path.endswith("/count_tokens") or ":countTokens" in path:
            self._json(200, {"input_tokens": 100, "totalTokens": 100})
        elif path.endswith("/v1/messages"):
            self._anthropic(body, raw, usage)
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self._gemini(body, path, usage)
        elif path.endswith("/responses"):
            self._responses(body, usage)
        else:
            self._json(404, {"error": {"message": "not here", "type": "not_found"}})

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            return self.rfile.read(length)
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return b""
        out = b""
        while True:
            size = int(self.rfile.readline().strip() or b"0", 16)
            if size == 0:
                self.rfile.readline()
                return out
            out += self.rfile.read(size)
            self.rfile.readline()

    def _json(self, code: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _events(self, events: list[tuple[str | None, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            self.wfile.write(((f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n").encode())
        self.wfile.flush()
        self.close_connection = True

    def _anthropic(self, body: dict[str, Any], raw: bytes, usage: int) -> None:
        text = SUMMARY if b"<summary>" in raw and b"summary" in raw.lower() else "ok"
        tokens = {"input_tokens": usage, "output_tokens": 10, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0}
        message = {"id": f"msg_{self.n}", "type": "message", "role": "assistant", "model": body.get("model", "m"),
                   "stop_reason": None, "stop_sequence": None, "usage": tokens}
        said = [m for m in body.get("messages") or [] if m.get("role") == "user"][-1:]
        asks = b'"tool_result"' not in raw and body.get("stream") and body.get("tools")
        call = self._tool_call(said) if asks else None
        if call is not None:
            name, arguments = call
            block = {"type": "tool_use", "id": f"toolu_{self.n}", "name": name, "input": {}}
            self._events([
                ("message_start", {"type": "message_start", "message": {**message, "content": []}}),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(arguments)}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                   "usage": {"output_tokens": 10}}),
                ("message_stop", {"type": "message_stop"}),
            ])
            return
        if not body.get("stream"):
            self._json(200, {**message, "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"})
            return
        self._events([
            ("message_start", {"type": "message_start", "message": {**message, "content": []}}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": text}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": 10}}),
            ("message_stop", {"type": "message_stop"}),
        ])

    def _tool_call(self, said: Any) -> tuple[str, dict[str, Any]] | None:
        """The tool call the user's last message asks for (BACKGROUND, READ), or None."""
        text = json.dumps(said)
        if BACKGROUND in text:
            return "Bash", BACKGROUND_CALL
        if READ in text:
            return "Read", {"file_path": self.owner.read}
        return None

    def _gemini(self, body: dict[str, Any], path: str, usage: int) -> None:
        config = body.get("generationConfig") or {}
        text = "ok"
        if config.get("responseMimeType") == "application/json" or config.get("responseJsonSchema"):
            text = json.dumps({"reasoning": "r", "next_speaker": "user", "model_choice": "flash",
                               "complexity_reasoning": "r", "complexity_score": 10})
        contents = body.get("contents") or [{}]
        answered = any("functionResponse" in part for part in contents[-1].get("parts") or [])
        call = self._tool_call(contents[-1]) if body.get("tools") and not answered else None
        parts: list[dict[str, Any]] = [{"text": text}]
        if call is not None and call[0] == "Read":
            parts = [{"functionCall": {"name": "read_file", "args": {"file_path": self.owner.read}}}]
        answer = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                  "index": 0}],
                  "usageMetadata": {"promptTokenCount": usage, "candidatesTokenCount": 10,
                                    "totalTokenCount": usage + 10}}
        if ":streamGenerateContent" not in path:
            self._json(200, answer)
        elif "alt=sse" in self.path:
            self._events([(None, answer)])
        else:
            self._json(200, [answer])

    def _responses(self, body: dict[str, Any], usage: int) -> None:
        item = {"type": "message", "id": f"msg_{self.n}", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}]}
        tokens = {"input_tokens": usage, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                  "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": usage + 10}
        base = {"id": f"resp_{self.n}", "object": "response", "created_at": int(time.time()),
                "model": body.get("model", "fake-model"), "status": "in_progress", "output": []}
        items = body.get("input") or [{}]
        said = [i for i in items if i.get("role") == "user"][-1:]
        answered = items[-1].get("type") == "function_call_output"
        call = self._tool_call(said) if body.get("tools") and not answered else None
        if call is not None and call[0] == "Read":  # Codex reads a file with its shell
            item = {"type": "function_call", "id": f"fc_{self.n}", "call_id": f"call_{self.n}", "status": "completed",
                    "name": "exec_command", "arguments": json.dumps({"cmd": f"cat {self.owner.read}"})}
        done = {**base, "status": "completed", "output": [item], "usage": tokens}
        if not body.get("stream", True):
            self._json(200, done)
            return
        if item["type"] == "function_call":
            self._events([
                ("response.created", {"type": "response.created", "sequence_number": 0, "response": base}),
                ("response.output_item.done", {"type": "response.output_item.done", "sequence_number": 1,
                                               "output_index": 0, "item": item}),
                ("response.completed", {"type": "response.completed", "sequence_number": 2, "response": done}),
            ])
            return
        self._events([
            ("response.created", {"type": "response.created", "sequence_number": 0, "response": base}),
            ("response.output_item.added", {"type": "response.output_item.added", "sequence_number": 1,
                                            "output_index": 0, "item": {**item, "status": "in_progress",
                                                                        "content": []}}),
            ("response.output_text.delta", {"type": "response.output_text.delta", "sequence_number": 2,
                                            "item_id": f"msg_{self.n}", "output_index": 0, "content_index": 0,
                                            "delta": "ok"}),
            ("response.output_item.done", {"type": "response.output_item.done", "sequence_number": 3,
                                           "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "sequence_number": 4, "response": done}),
        ])
