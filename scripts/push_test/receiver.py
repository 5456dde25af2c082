"""A push service on loopback, for the browser's side: one threaded http.server that, for each
subscription path, records every request, checks it (webpush.inspect: headers, VAPID JWT, the
RFC 8291 body twice decrypted, the payload) as it arrives, and answers per a scripted queue of
statuses (201 when nothing is queued), or a held status until released."""

import http.server
import itertools
import threading
import time
from collections import deque

from . import webpush


class Record:
    """One request the receiver got, with what it answered and what the checks found."""

    def __init__(self, sequence, method, path, headers, body):
        self.sequence, self.method, self.path, self.headers, self.body = sequence, method, path, headers, body
        self.arrived = time.monotonic()
        self.status = None  # what the receiver answered
        self.answered = None  # time.monotonic() once the answer was written
        self.payload = None  # the decrypted JSON, when the body decrypted
        self.claims = None  # the VAPID JWT's claims, when it verified
        self.problems = []  # every rule the request broke

    @property
    def ok(self) -> bool:
        """Answered 2xx: delivered, as the service sees it."""
        return self.status is not None and 200 <= self.status < 300

    @property
    def notification_id(self):
        return self.payload.get("notification_id") if isinstance(self.payload, dict) else None

    @property
    def type(self):
        return self.payload.get("type") if isinstance(self.payload, dict) else None

    def describe(self) -> str:
        what = f"{self.type} #{self.notification_id}" if self.payload else "undecrypted"
        return f"{self.method} {self.path} ({what}) → {self.status}"


class Receiver:
    """The push service. Paths are registered with their Subscription; a request to another path
    is recorded as a problem and answered 404 (the service then forgets that subscription)."""

    def __init__(self, subject: str):
        self.subject = subject
        self.service_key = None  # the VAPID key the service publishes; `k` must equal it
        self.subscriptions: dict[str, webpush.Subscription] = {}
        self.records: list[Record] = []
        self.queues: dict[str, deque] = {}
        self.held: dict[str, tuple[int, dict]] = {}
        self.condition = threading.Condition()
        self.counter = itertools.count(1)
        self.last = 0  # the sequence number of the latest request
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *arguments):  # quiet: the records are the log
                pass

            def do_POST(self):
                receiver.handle(self)

            do_PUT = do_GET = do_DELETE = do_PATCH = do_POST

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, name="push receiver", daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exception):
        self.server.shutdown()
        self.server.server_close()

    def url(self, path: str) -> str:
        return self.origin + path

    def add(self, subscription: webpush.Subscription):
        with self.condition:
            self.subscriptions[subscription.path] = subscription

    def script(self, path: str, *answers):
        """Queues answers for the next requests to `path`: each a status or (status, headers)."""
        with self.condition:
            queue = self.queues.setdefault(path, deque())
            for answer in answers:
                queue.append(answer if isinstance(answer, tuple) else (answer, {}))

    def hold(self, path: str, status: int, headers: dict | None = None):
        """Answers `status` to every request to `path` until `release`."""
        with self.condition:
            self.held[path] = (status, headers or {})

    def release(self, path: str):
        with self.condition:
            self.held.pop(path, None)

    @staticmethod
    def _read_body(handler) -> bytes:
        if "chunked" in handler.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(handler.rfile.read(size))
                handler.rfile.readline()
        return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))

    def handle(self, handler):
        path = handler.path
        headers = {}
        for name, value in handler.headers.items():
            headers.setdefault(name.lower(), []).append(value)
        body = self._read_body(handler)
        with self.condition:
            self.last = next(self.counter)
            record = Record(self.last, handler.command, path, headers, body)
            subscription = self.subscriptions.get(path)
            service_key = self.service_key
        if handler.command != "POST":
            record.problems.append(f"{handler.command}, not POST (RFC 8030 §5)")
        if subscription is None:
            record.problems.append(f"a request to {path}, which no subscription has")
            status, extra = 404, {}
        else:
            if subscription.deleted:
                record.problems.append(f"a push to {path}, whose subscription was deleted")
            try:
                record.payload, record.claims, problems = webpush.inspect(
                    headers, body, subscription, service_key, self.origin, self.subject)
                record.problems.extend(problems)
            except Exception as error:  # a fault of this script: shown, never a hung request
                record.problems.append(f"the receiver's checks failed: {error!r}")
            with self.condition:
                queue = self.queues.get(path)
                if path in self.held:
                    status, extra = self.held[path]
                elif queue:
                    status, extra = queue.popleft()
                else:
                    status, extra = 201, {"Location": f"/message/{record.sequence}"}
        record.status = status
        with self.condition:
            self.records.append(record)
        handler.send_response(status)
        for name, value in extra.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", "0")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        try:
            handler.wfile.flush()
        except OSError:
            pass
        with self.condition:
            record.answered = time.monotonic()
            self.condition.notify_all()

    def mark(self) -> int:
        """The latest request's sequence number: requests after it have higher ones."""
        with self.condition:
            return self.last

    def snapshot(self) -> list[Record]:
        """Every answered request so far, in arrival order."""
        with self.condition:
            return self._answered()

    def _answered(self) -> list[Record]:
        return sorted((record for record in self.records if record.answered is not None),
                      key=lambda record: record.sequence)

    def wait_until(self, predicate, timeout: float, alive=None):
        """Waits until `predicate(records)` answers something true (the answered requests so far),
        and answers that; None after `timeout` s, or as soon as `alive()` turns false."""
        end = time.monotonic() + timeout
        with self.condition:
            while True:
                records = self._answered()
                found = predicate(records)
                if found:
                    return found
                remaining = end - time.monotonic()
                if remaining <= 0 or (alive is not None and not alive()):
                    return None
                self.condition.wait(min(remaining, 0.25))
