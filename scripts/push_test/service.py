"""One `burgermap serve` on loopback (started, killed with SIGKILL, started again on the same data)
and its HTTP API, as the other end-to-end scripts talk to it."""

import http.client
import json
import os
import signal
import socket
import subprocess
import time


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Answer:
    """One HTTP answer: status, headers (case-insensitive) and body bytes."""

    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    def is_problem(self) -> bool:
        return (self.headers.get("Content-Type") or "").startswith("application/problem+json")

    def __str__(self):
        return f"{self.status} {self.body[:300].decode('utf-8', 'replace')}"


def call(port, method, path, body=None, token=None, headers=None, raw=None, content_type=None, timeout=30):
    """Sends one request on a new connection; transport failures raise OSError or HTTPException."""
    sent = dict(headers or {})
    payload = raw
    if body is not None:
        payload = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    if content_type:
        sent["Content-Type"] = content_type
    if token:
        sent["Authorization"] = "Bearer " + token
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=payload, headers=sent)
        response = connection.getresponse()
        return Answer(response.status, response.headers, response.read())
    finally:
        connection.close()


def multipart(fields: dict) -> tuple[bytes, str]:
    """A multipart/form-data body of text fields (a review without photos)."""
    boundary = "burgermap-push-test-5f0c2a"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in fields.items()]
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class Server:
    """`burgermap serve` on a data folder (and a database URL for PostgreSQL), on a new free port
    at each start; its output appended to one log file."""

    def __init__(self, binary: str, data_dir: str, log_path: str, arguments: list, environment: dict):
        self.binary, self.data_dir, self.log_path = binary, data_dir, log_path
        self.arguments, self.environment = arguments, environment
        self.process = None
        self.port = None
        self.starts = 0

    def start(self, timeout: float = 60):
        """Starts the service and waits until `/health` answers 200; RuntimeError otherwise."""
        self.port = free_port()
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {self.starts} on port {self.port}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir,
                 *self.arguments],
                env=self.environment, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"burgermap serve exited with {self.process.returncode} at start\n{self.log_tail()}")
            try:
                if call(self.port, "GET", "/health", timeout=2).status == 200:
                    return
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        raise RuntimeError(f"burgermap serve did not answer /health with 200 within {timeout:g} s\n{self.log_tail()}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill9(self):
        """SIGKILL, then reap it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self, timeout: float = 15):
        """SIGTERM; SIGKILL after `timeout` s."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill9()

    def log_tail(self, lines: int = 30) -> str:
        try:
            with open(self.log_path, "rb") as log:
                text = log.read()[-20000:].decode("utf-8", "replace").splitlines()[-lines:]
        except OSError:
            return "(no log)"
        return "\n".join(f"    | {line}" for line in text)

    def call(self, method, path, **options) -> Answer:
        return call(self.port, method, path, **options)
