"""Starting, killing and talking to one `burgermap serve` process on loopback."""

import http.client
import json
import os
import signal
import socket
import subprocess
import threading
import time


def free_port():
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Answer:
    """One HTTP answer: status, headers and body bytes (JSON decoded on demand)."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def ok(self):
        return 200 <= self.status < 300

    def json(self):
        return json.loads(self.body) if self.body else None


def call(port, method, path, body=None, headers=None, token=None, timeout=30):
    """Sends one request on a new connection. Transport failures (refused, reset, a connection
    closed before the answer) raise OSError or http.client.HTTPException."""
    headers = dict(headers or {})
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return Answer(response.status, dict(response.getheaders()), response.read())
    finally:
        connection.close()


class Service:
    """One `burgermap serve` on a data folder; restarted on the same folder after each kill."""

    def __init__(self, binary, data_dir, port, log_path):
        self.binary = binary
        self.data_dir = data_dir
        self.port = port
        self.log_path = log_path
        self.process = None
        self.starts = 0
        self.started_at = None  # wall-clock time of the last start (file times are compared with it)

    def start(self, timeout=60):
        """Starts the service and waits until `/health` answers 200 (migrations and the photo
        sweep run before it listens)."""
        log = open(self.log_path, "ab")
        log.write(f"--- start {self.starts + 1}\n".encode())
        log.flush()
        self.started_at = time.time()
        # An access-token lifetime of an hour: the run is shorter, so tokens only change
        # through the refresh and login writes the load makes on purpose.
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--data-dir", self.data_dir,
             "--access-token-ttl", "3600",
             # The load writes far faster than a person: the per-user write limits would refuse it.
             "--write-limit", "review=1000000/60", "--write-limit", "comment=1000000/60",
             "--write-limit", "reaction=1000000/60", "--write-limit", "follow=1000000/60",
             "--write-limit", "avatar=1000000/60"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the service exited with {self.process.returncode} at start (see {self.log_path})")
            try:
                if call(self.port, "GET", "/health", timeout=2).status == 200:
                    return
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.02)
        raise RuntimeError(f"the service did not answer /health within {timeout} s")

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def exit_code(self):
        return None if self.process is None else self.process.poll()

    def stop(self, timeout=30):
        """SIGTERM (a graceful shutdown); SIGKILL after `timeout` s. Answers whether it stopped by itself."""
        if self.process is None or self.process.poll() is not None:
            return True
        os.kill(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            self.kill9()
            return False

    def kill9(self):
        """SIGKILL, then reap the process."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()


class Gate:
    """Lets workers send requests only while the service is up, and lets the killer know when
    every request sent to the killed process has come back (answered or failed).

    `generation` grows at every kill: a request that fails with the generation it started in
    still current failed while the service was meant to be up."""

    class Closed(Exception):
        pass

    def __init__(self):
        self.condition = threading.Condition()
        self.up = False
        self.finished = False
        self.in_flight = 0
        self.generation = 0

    def enter(self):
        with self.condition:
            while not self.up and not self.finished:
                self.condition.wait()
            if self.finished:
                raise Gate.Closed()
            self.in_flight += 1
            return self.generation

    def leave(self):
        with self.condition:
            self.in_flight -= 1
            self.condition.notify_all()

    def close(self, kill=True):
        """No new requests; with `kill` the generation moves on (the caller then kills)."""
        with self.condition:
            self.up = False
            if kill:
                self.generation += 1

    def drain(self, timeout):
        with self.condition:
            return self.condition.wait_for(lambda: self.in_flight == 0, timeout)

    def open(self):
        with self.condition:
            self.up = True
            self.condition.notify_all()

    def finish(self):
        with self.condition:
            self.finished = True
            self.up = False
            self.condition.notify_all()
