"""The language server's side of the wire: Content-Length framing on a byte stream, and the
JSON-RPC and LSP rules for messages that are malformed or come at the wrong time.

pygls reads headers with a pattern that a message without `Content-Length` derails for good (every
later message is then read as part of a body that never ends), and it answers some bad requests
with nothing: invalid JSON, params that do not fit the method, requests before `initialize`
(`null`) or after `shutdown`. The reading loop here resynchronises on the next `Content-Length`
header, and `StrictProtocol` answers every request, as the specifications require.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from typing import Any, Callable, Optional

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdinAsyncReader
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest

# A Content-Length header anywhere in a line: after a body sent without one, the next message's
# header follows that body on the same line.
_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n?$", re.IGNORECASE)
PARSE_ERROR = types.ErrorCodes.ParseError
INVALID_REQUEST = types.ErrorCodes.InvalidRequest
INVALID_PARAMS = types.ErrorCodes.InvalidParams
NOT_INITIALIZED = types.ErrorCodes.ServerNotInitialized


def warn(message: str) -> None:
    """One line on stderr, which editors show in the server's output."""
    print(f"gradlint server: {message}", file=sys.stderr, flush=True)


async def read_message(reader: StdinAsyncReader, complain: Callable[[str], None] = warn) -> Optional[bytes]:
    """The body of the next message; None when the stream has ended. Bytes that no header with a
    valid Content-Length announces are skipped (said once per skipped message)."""
    length: Optional[int] = None
    skipped = False
    while True:
        line = await reader.readline()
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
    body = await reader.readexactly(length)
    if len(body) < length:
        complain("the input ended in the middle of a message")
        return None
    return body


def _is_header(line: bytes) -> bool:
    name, colon, _ = line.partition(b":")
    return bool(colon) and re.fullmatch(rb"[A-Za-z0-9-]+", name) is not None


async def serve_stream(protocol: "StrictProtocol", reader: StdinAsyncReader, stop: threading.Event) -> None:
    while not stop.is_set():
        body = await read_message(reader)
        if body is None:
            return
        protocol.handle_body(body)


class StrictProtocol(LanguageServerProtocol):
    """pygls' protocol, answering every request it would leave unanswered or answer wrongly."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_received = False

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
            self._handle_data(data)
        except RecursionError:  # nesting the decoder took, but reading the message's fields did not
            if isinstance(data, dict) and "method" in data and "id" not in data:
                warn(f"ignored a {data['method']} notification nested too deeply")  # a notification never gets an answer
                return
            request_id = data.get("id") if isinstance(data, dict) else None
            self.reply_error(request_id if _valid_id(request_id) else None, INVALID_REQUEST, "Invalid Request: nested too deeply")

    def _handle_data(self, data: Any) -> None:
        if not isinstance(data, dict):  # LSP has no batches
            self.reply_error(None, INVALID_REQUEST, "Invalid Request: a message is a JSON object")
            return
        problem = _invalid_request(data)
        if problem is not None:
            if "id" in data or "method" not in data:  # a notification never gets an answer
                request_id = data.get("id")
                self.reply_error(request_id if _valid_id(request_id) else None, INVALID_REQUEST, f"Invalid Request: {problem}")
            return
        try:
            message = self.structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:
                self.reply_error(data["id"], INVALID_PARAMS, f"Invalid params for {data['method']}: {_cause(error)}")
            else:
                warn(f"ignored a malformed {data.get('method', 'response')} message: {_cause(error)}")
            return
        self.handle_message(message)

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        request = isinstance(message, RPCRequest)
        if not self.initialize_received:
            if request and method != types.INITIALIZE:
                self.reply_error(message.id, NOT_INITIALIZED, f"Server not initialized: {method} before initialize")
                return
            if not request and method not in (None, types.EXIT):
                return  # notifications before initialize are dropped (LSP), except exit
        elif request and method == types.INITIALIZE:
            self.reply_error(message.id, INVALID_REQUEST, "Invalid Request: initialize was already received")
            return
        if request and self._shutdown:
            self.reply_error(message.id, INVALID_REQUEST, f"Invalid Request: {method} after shutdown")
            return
        if request and method == types.INITIALIZE:
            self.initialize_received = True
        super().handle_message(message)

    def reply_error(self, request_id: Any, code: types.ErrorCodes, message: str) -> None:
        self._send_response(request_id, error=types.ResponseError(code=code.value, message=message))


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


def _cause(error: BaseException) -> str:
    """The innermost reason, on one line (cattrs nests the field that failed)."""
    while error.__cause__ is not None:
        error = error.__cause__
    exceptions = getattr(error, "exceptions", None)
    while exceptions:
        error = exceptions[0]
        exceptions = getattr(error, "exceptions", None)
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
