"""A Server-Sent Events client for the check scripts (scripts/multi-instance, scripts/proxy-check):
one `GET /v1/streaming` on its own http.client connection (plain or TLS), read line by line on a
thread as the bytes come, each line timed on arrival with time.monotonic(). Standard library
only.

The service's stream (Sources/BurgerMap/Notifications/StreamingController.swift) begins with
`retry: 3000`, then sends frames `id: N` / `event: notification` / `data: {list item}` and, every
15 s, a `: heartbeat` comment."""

import http.client
import json
import socket
import threading
import time


class Frame:
    """One dispatched event: its `id:`, `event:` and `data:` fields, and when its `data:` line
    was read here (time.monotonic())."""

    def __init__(self, identifier, event, data, arrived):
        self.id, self.event, self.data, self.arrived = identifier, event, data, arrived

    def json(self):
        try:
            return json.loads(self.data)
        except ValueError:
            return None

    def __repr__(self):
        return f"Frame(id={self.id!r}, event={self.event!r}, data={self.data[:120]!r})"


class EventStream(threading.Thread):
    """Opens the stream at construction (the answer's status and headers are there once it
    returns); `start()` then reads it. `read_timeout` bounds the wait for any byte, heartbeats
    included: a silent stream ends the reader with `error` set."""

    def __init__(self, connection: http.client.HTTPConnection, path: str, headers: dict | None = None,
                 read_timeout: float = 30):
        super().__init__(daemon=True, name=f"event stream {path[:40]}")
        self.connection = connection
        self.opened = time.monotonic()
        connection.request("GET", path, headers={"Accept": "text/event-stream", **(headers or {})})
        self.socket = connection.sock  # kept: http.client lets go of it when the answer closes the connection
        self.response = connection.getresponse()
        self.status = self.response.status
        self.headers = self.response.headers
        self.body = b""
        if self.status != 200:
            self.body = self.response.read()
        else:
            self.socket.settimeout(read_timeout)
        self.answered = time.monotonic()  # the status line and headers were read
        self.condition = threading.Condition()
        self.frames: list[Frame] = []
        self.retry = None  # (the `retry:` value, when it arrived)
        self.comments: list[tuple[str, float]] = []  # `: heartbeat` lines, with when they arrived
        self.ended = False
        self.error = None
        self.closing = False

    def run(self):
        if self.status != 200:
            self._end(None)
            return
        identifier, event, data, data_at = None, None, [], None
        try:
            while True:
                raw = self.response.readline()
                arrived = time.monotonic()
                if not raw:
                    break
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                if line == "":
                    if data:
                        frame = Frame(identifier, event or "message", "\n".join(data), data_at)
                        with self.condition:
                            self.frames.append(frame)
                            self.condition.notify_all()
                    event, data, data_at = None, [], None
                    continue
                if line.startswith(":"):
                    with self.condition:
                        self.comments.append((line[1:].strip(), arrived))
                        self.condition.notify_all()
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "id":
                    identifier = value
                elif name == "event":
                    event = value
                elif name == "data":
                    data.append(value)
                    data_at = data_at or arrived
                elif name == "retry":
                    with self.condition:
                        self.retry = (value, arrived)
                        self.condition.notify_all()
            self._end(None)
        except (OSError, http.client.HTTPException, ValueError) as error:
            self._end(None if self.closing else error)

    def _end(self, error):
        with self.condition:
            self.ended, self.error = True, error
            self.condition.notify_all()

    def wait_until(self, predicate, timeout: float):
        """Waits until `predicate(self)` answers something true, and answers it; None after
        `timeout` s or once the stream ended."""
        end = time.monotonic() + timeout
        with self.condition:
            while True:
                found = predicate(self)
                if found or self.ended:
                    return found or None
                remaining = end - time.monotonic()
                if remaining <= 0:
                    return None
                self.condition.wait(remaining)

    def wait_for_frame(self, predicate, timeout: float, after: int = 0):
        """The first frame from index `after` on for which `predicate(frame)` holds, or None."""
        return self.wait_until(lambda stream: next(
            (frame for frame in stream.frames[after:] if predicate(frame)), None), timeout)

    def mark(self) -> int:
        """How many frames came so far: `wait_for_frame(after=mark)` looks at later ones only."""
        with self.condition:
            return len(self.frames)

    def close(self):
        self.closing = True
        try:
            self.socket.shutdown(socket.SHUT_RDWR)  # wakes the reader's recv: it reads the end
        except OSError:
            pass
        if self.is_alive():
            self.join(5)
        self.response.close()
        self.connection.close()
