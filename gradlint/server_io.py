"""The language server's side of the wire: Content-Length framing on stdin/stdout, JSON-RPC 2.0
with plain dicts, and the LSP's rules for messages that are malformed or come at the wrong time.

Every request gets an answer, as the specifications require: invalid JSON (-32700), a message that
is not a JSON-RPC request (-32600), an unknown method (-32601), params that do not fit the method
(-32602), a request before `initialize` (-32002) or after `shutdown` (-32600), a request the client
cancelled (-32800), a failure of the server's own (-32603). A message without a valid
Content-Length header is skipped, and reading resynchronises on the next header.

Kept small on purpose: the server answers `initialize` before it has imported anything heavy.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import threading
import traceback
from typing import Any, BinaryIO, Callable, Optional

from gradlint.server_text import InvalidParams

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800

# A Content-Length header anywhere in a line: after a body sent without one, the next message's
# header follows that body on the same line.
_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n?$", re.IGNORECASE)

Handler = Callable[[Any], Any]  # params -> result, or a coroutine of the result


def warn(message: str) -> None:
    """One line on stderr, which editors show in the server's output."""
    print(f"gradlint server: {message}", file=sys.stderr, flush=True)


def read_message(stream: BinaryIO, complain: Callable[[str], None] = warn) -> Optional[bytes]:
    """The body of the next message; None when the stream has ended. Bytes that no header with a
    valid Content-Length announces are skipped (said once per skipped message)."""
    length: Optional[int] = None
    skipped = False
    while True:
        line = stream.readline()
        if not line:
            return None
        header = _CONTENT_LENGTH.search(line)
        if header is not None:
            skipped = skipped or header.start() > 0
            length = int(header.group(1))
        elif not line.strip():
            if length is not None:
                break
        else:
            skipped = skipped or not _is_header(line)
    if skipped:
        complain("skipped a message without a valid Content-Length header")
    body = stream.read(length)
    if len(body) < length:
        complain("the input ended in the middle of a message")
        return None
    return body


def _is_header(line: bytes) -> bool:
    name, colon, _ = line.partition(b":")
    return bool(colon) and re.fullmatch(rb"[A-Za-z0-9-]+", name) is not None


def framed(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")  # ASCII: a lone surrogate is written escaped
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Endpoint:
    """One JSON-RPC connection with the LSP's lifecycle: nothing but `initialize` (and `exit`)
    before `initialize`, nothing but `exit` after `shutdown`.

    Handlers take the params and return the result; a handler may be a coroutine function, whose
    request can then be cancelled (`$/cancelRequest`) while it waits. A handler raises
    InvalidParams for params of the wrong shape."""

    def __init__(self, output: BinaryIO) -> None:
        self.output = output
        self.requests: dict[str, Handler] = {}
        self.notifications: dict[str, Handler] = {}
        self.initialize_received = False
        self.shut_down = False
        self.on_exit: Callable[[], None] = lambda: None
        self._pending: dict[Any, asyncio.Task] = {}

    # Sending

    def send(self, message: dict) -> None:
        try:
            self.output.write(framed({"jsonrpc": "2.0", **message}))
            self.output.flush()
        except (BrokenPipeError, ValueError):  # the client has gone (or its stream is closed): stop serving
            self.on_exit()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def reply(self, request_id: Any, result: Any) -> None:
        self.send({"id": request_id, "result": result})

    def reply_error(self, request_id: Any, code: int, message: str) -> None:
        self.send({"id": request_id, "error": {"code": code, "message": message}})

    # Receiving

    def handle_body(self, body: bytes) -> None:
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError) as error:
            self.reply_error(None, PARSE_ERROR, f"Parse error: {error}")
            return
        except RecursionError:  # the decoder recurses per level of nesting
            self.reply_error(None, PARSE_ERROR, "Parse error: the JSON is nested too deeply")
            return
        try:
            self.handle(data)
        except RecursionError:  # nesting the decoder took, but handling the message did not
            if isinstance(data, dict) and "method" in data and "id" not in data:
                warn(f"ignored a {data['method']} notification nested too deeply")  # a notification never gets an answer
                return
            request_id = data.get("id") if isinstance(data, dict) else None
            self.reply_error(request_id if _valid_id(request_id) else None, INVALID_REQUEST, "Invalid Request: nested too deeply")

    def handle(self, data: Any) -> None:
        if not isinstance(data, dict):  # LSP has no batches
            self.reply_error(None, INVALID_REQUEST, "Invalid Request: a message is a JSON object")
            return
        problem = _invalid_request(data)
        if problem is not None:
            if "id" in data or "method" not in data:  # a notification never gets an answer
                request_id = data.get("id")
                self.reply_error(request_id if _valid_id(request_id) else None, INVALID_REQUEST, f"Invalid Request: {problem}")
            return
        if "method" not in data:
            return  # a response: the server sends no requests that wait for one
        method, params = data["method"], data.get("params")
        if "id" in data:
            self._request(data["id"], method, params)
        else:
            self._notification(method, params)

    def _request(self, request_id: Any, method: str, params: Any) -> None:
        if not self.initialize_received and method != "initialize":
            self.reply_error(request_id, NOT_INITIALIZED, f"Server not initialized: {method} before initialize")
            return
        if self.initialize_received and method == "initialize":
            self.reply_error(request_id, INVALID_REQUEST, "Invalid Request: initialize was already received")
            return
        if self.shut_down:
            self.reply_error(request_id, INVALID_REQUEST, f"Invalid Request: {method} after shutdown")
            return
        handler = self.requests.get(method)
        if handler is None:
            self.reply_error(request_id, METHOD_NOT_FOUND, f"Method Not Found: {method}")
            return
        try:
            result = handler(params)
        except Exception as error:
            self._reply_failure(request_id, method, error)
            return
        if method == "initialize":
            self.initialize_received = True
        elif method == "shutdown":
            self.shut_down = True
            for task in self._pending.values():
                task.cancel()
        if asyncio.iscoroutine(result):
            task = asyncio.ensure_future(result)
            self._pending[request_id] = task
            task.add_done_callback(lambda done: self._finished(request_id, method, done))
        else:
            self.reply(request_id, result)

    def _finished(self, request_id: Any, method: str, task: asyncio.Task) -> None:
        if self._pending.get(request_id) is task:
            del self._pending[request_id]
        if task.cancelled():
            self.reply_error(request_id, REQUEST_CANCELLED, f"Request Cancelled: {method}")
        elif task.exception() is not None:
            self._reply_failure(request_id, method, task.exception())
        else:
            self.reply(request_id, task.result())

    def _reply_failure(self, request_id: Any, method: str, error: BaseException) -> None:
        if isinstance(error, InvalidParams):
            self.reply_error(request_id, INVALID_PARAMS, f"Invalid params for {method}: {error}")
        else:
            warn(f"internal error in {method}: {''.join(traceback.format_exception_only(type(error), error)).strip()}")
            self.reply_error(request_id, INTERNAL_ERROR, f"Internal error in {method}: {type(error).__name__}: {error}")

    def _notification(self, method: str, params: Any) -> None:
        if method == "exit":
            self.on_exit()
            return
        if not self.initialize_received or self.shut_down:
            return  # dropped (LSP)
        if method == "$/cancelRequest":
            request_id = params.get("id") if isinstance(params, dict) else None
            task = self._pending.get(request_id)
            if task is not None:
                task.cancel()
            return
        handler = self.notifications.get(method)
        if handler is None:
            return  # an unknown notification, `$/` ones included, is ignored (LSP)
        try:
            handler(params)
        except InvalidParams as error:
            warn(f"ignored a malformed {method} message: {error}")
        except Exception as error:  # a failure in one notification must not stop the server
            warn(f"internal error in {method}: {type(error).__name__}: {error}")


def serve(endpoint: Endpoint, stream: BinaryIO) -> None:
    """Read messages from `stream` until it ends or the client says `exit`; each message is handled
    on the event loop, in order (a thread reads, so that the loop never blocks on the input).

    The next message is read only after the loop has gone round once more after handling one: what
    a message started at once (the check of an opened document) starts before the next message is
    handled, however fast the client writes."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stopped = loop.create_future()
        handled = threading.Event()

        def stop() -> None:
            if not stopped.done():
                stopped.set_result(None)

        def handle(body: bytes) -> None:
            try:
                endpoint.handle_body(body)
            finally:
                loop.call_soon(handled.set)

        def read() -> None:
            try:
                while True:
                    body = read_message(stream)
                    if body is None:
                        break
                    handled.clear()
                    loop.call_soon_threadsafe(handle, body)
                    handled.wait()
                loop.call_soon_threadsafe(stop)
            except RuntimeError:  # the loop has closed: the server is exiting
                pass

        endpoint.on_exit = stop
        threading.Thread(target=read, name="gradlint-server-reader", daemon=True).start()
        await stopped

    asyncio.run(main())


def _invalid_request(data: dict) -> Optional[str]:
    """Why `data` is not a JSON-RPC 2.0 request, notification or response; None if it is one."""
    if data.get("jsonrpc") != "2.0":
        return 'the "jsonrpc" member must be "2.0"'
    if "method" in data and not isinstance(data["method"], str):
        return 'the "method" member must be a string'
    if "id" in data and not _valid_id(data["id"]) and "method" in data:
        return 'the "id" member must be an integer or a string'
    if "method" not in data and "id" not in data:
        return 'neither a "method" nor an "id"'
    return None


def _valid_id(request_id: Any) -> bool:
    return isinstance(request_id, (int, str)) and not isinstance(request_id, bool)
