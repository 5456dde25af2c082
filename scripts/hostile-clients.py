#!/usr/bin/env python3
"""Hostile clients against a running BurgerMap server (see scripts/bench-hostile).

Only the Python standard library; every loop is bounded in count and time, and every target is
the loopback address.
"""
import argparse
import json
import multiprocessing
import os
import selectors
import socket
import statistics
import threading
import time
import urllib.request

HOST = "127.0.0.1"


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def register(port):
    body = json.dumps({"email": "hostile@example.com", "password": "hostile password", "nickname": "hostile"})
    request = urllib.request.Request(
        f"http://{HOST}:{port}/v1/auth/register", data=body.encode(), headers={"Content-Type": "application/json"}
    )
    return json.load(urllib.request.urlopen(request, timeout=10))["access_token"]


def read_answer(sock, limit=1 << 20):
    """Reads until the server closes or the answer's Content-Length is complete."""
    data = b""
    while len(data) < limit:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        if _:
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:") and len(body) >= int(line.split(b":")[1]):
                    return data
    return data


def status_of(answer):
    try:
        return int(answer.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def header_of(answer, name):
    head = answer.partition(b"\r\n\r\n")[0]
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name.lower().encode():
            return value.strip().decode()
    return None


def many_parts(port, pid, token):
    print("== 1. one request of 1,100,000 tiny parts, all named x")
    part = b'--b\r\nContent-Disposition: form-data; name="x"\r\n\r\ny\r\n'
    body = part * 1_100_000 + b"--b--\r\n"
    head = (
        f"POST /v1/places/1/reviews HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    before = rss_kb(pid)
    peak = [before]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_kb(pid))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    sock = socket.create_connection((HOST, port), timeout=30)
    started = time.monotonic()

    def send():
        try:
            sock.sendall(head + body)
        except OSError:
            pass

    sender = threading.Thread(target=send)
    sender.start()
    answer = read_answer(sock)
    elapsed = time.monotonic() - started
    sender.join(timeout=30)
    sock.close()
    time.sleep(0.2)
    done.set()
    sampler.join()
    body_bytes = len(answer.partition(b"\r\n\r\n")[2])
    print(f"body {len(body) / 1e6:.1f} MB: HTTP {status_of(answer)} in {elapsed * 1000:.0f} ms (goal < 1 s), "
          f"problem document {body_bytes} bytes (goal < 4 KB)")
    document = answer.partition(b"\r\n\r\n")[2]
    print("  " + document[:160].decode(errors="replace"))
    print(f"server RSS {before / 1024:.0f} MB before, peak {peak[0] / 1024:.0f} MB: growth "
          f"{(peak[0] - before) / 1024:.1f} MB (goal < 20 MB)")


def hold_idle(count, port, results, ready, idle_timeout):
    socks = []
    opened_at = time.monotonic()
    for _ in range(count):
        try:
            sock = socket.create_connection((HOST, port), timeout=10)
        except OSError:
            break
        sock.setblocking(False)
        socks.append(sock)
    ready.put(len(socks))
    selector = selectors.DefaultSelector()
    for sock in socks:
        selector.register(sock, selectors.EVENT_READ)
    closed = []
    deadline = time.monotonic() + idle_timeout + 15
    open_count = len(socks)
    while open_count and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            try:
                data = key.fileobj.recv(1)
            except OSError:
                data = b""
            if not data:
                closed.append(time.monotonic() - opened_at)
                selector.unregister(key.fileobj)
                key.fileobj.close()
                open_count -= 1
    results.put((len(socks), closed))
    for key in list(selector.get_map().values()):
        key.fileobj.close()


def idle_connections(port, total, idle_timeout):
    print(f"== 2. {total:,} idle connections (server --idle-timeout {idle_timeout})")
    latencies = []
    failures = [0]
    stop = threading.Event()

    def probe():
        while not stop.is_set():
            started = time.monotonic()
            try:
                sock = socket.create_connection((HOST, port), timeout=5)
                sock.sendall(f"GET /health HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
                answer = read_answer(sock)
                sock.close()
                if status_of(answer) == 200:
                    latencies.append(time.monotonic() - started)
                else:
                    failures[0] += 1
            except OSError:
                failures[0] += 1
            time.sleep(0.01)

    prober = threading.Thread(target=probe)
    prober.start()
    processes = 2
    results = multiprocessing.Queue()
    ready = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(target=hold_idle, args=(total // processes, port, results, ready, idle_timeout))
        for _ in range(processes)
    ]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    opened = sum(ready.get(timeout=120) for _ in workers)
    print(f"opened {opened:,} connections in {time.monotonic() - started:.1f} s")
    outcomes = [results.get(timeout=idle_timeout + 60) for _ in workers]
    stop.set()
    prober.join()
    for worker in workers:
        worker.join()
    closed = sorted(t for _, times in outcomes for t in times)
    still_open = opened - len(closed)
    latencies.sort()
    if latencies:
        p50 = statistics.median(latencies) * 1000
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
        print(f"/health while they were held: {len(latencies)} answers, {failures[0]} failures, "
              f"median {p50:.1f} ms, p99 {p99:.1f} ms (goal p99 < 50 ms)")
    if closed:
        print(f"closed by the server: {len(closed):,}, the last {closed[-1]:.1f} s after opening began "
              f"(idle timeout {idle_timeout} s); still open: {still_open}")


def write_first(port, token, tries):
    print(f"== 3. clients that write the whole body before reading, {tries} tries each")
    photo = b"\xff\xd8\xff" + os.urandom(16 * 1024 * 1024)
    multipart = (
        b'--b\r\nContent-Disposition: form-data; name="rating"\r\n\r\n5\r\n'
        b'--b\r\nContent-Disposition: form-data; name="text"\r\n\r\nbig\r\n'
        b'--b\r\nContent-Disposition: form-data; name="photo"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'
        + photo + b"\r\n--b--\r\n"
    )
    cases = [
        ("16 MB photo part", "/v1/places/1/reviews", "multipart/form-data; boundary=b", multipart),
        ("70 MB body", "/v1/places/1/reviews", "multipart/form-data; boundary=b", os.urandom(70 * 1024 * 1024)),
        ("16 MB JSON body", "/v1/auth/login", "application/json", b'{"email": "' + b"a" * (16 << 20) + b'"}'),
    ]
    for name, path, content_type, body in cases:
        received = 0
        times = []
        for _ in range(tries):
            head = (
                f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: Bearer {token}\r\n"
                f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            started = time.monotonic()
            try:
                sock = socket.create_connection((HOST, port), timeout=10)
                sock.sendall(head + body)
                answer = read_answer(sock)
                sock.close()
            except OSError:
                answer = b""
            elapsed = time.monotonic() - started
            if status_of(answer) == 413 and header_of(answer, "connection") == "close":
                received += 1
                times.append(elapsed)
        median = statistics.median(times) * 1000 if times else float("nan")
        worst = max(times) * 1000 if times else float("nan")
        print(f"{name}: 413 with Connection: close received {received} of {tries}, "
              f"median {median:.0f} ms, slowest {worst:.0f} ms (goal {tries} of {tries}, < 1 s)")


def slow_clients(port, idle_timeout, header_timeout):
    print("== 4. slow clients")

    def timed(name, first, trickle, results):
        sock = socket.create_connection((HOST, port), timeout=60)
        started = time.monotonic()
        sock.sendall(first)
        sock.settimeout(1)
        while time.monotonic() - started < 60:
            try:
                data = sock.recv(65536)
                if not data:
                    break
            except socket.timeout:
                if trickle:
                    try:
                        sock.sendall(trickle)
                    except OSError:
                        break
            except OSError:
                break
        results.append((name, time.monotonic() - started))
        sock.close()

    results = []
    cases = [
        ("nothing sent", b"", None),
        ("half a request line", b"GET /hea", None),
        ("headers at one byte a second", b"GET /health HTTP/1.1\r\nHost: x\r\n", b"X"),
        ("a body at one byte a second", b"POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
         b"\r\nContent-Length: 1000\r\n\r\n{", b" "),
        ("idle after one request", f"GET /health HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode(), None),
    ]
    threads = [threading.Thread(target=timed, args=(name, first, trickle, results)) for name, first, trickle in cases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name, elapsed in sorted(results):
        print(f"{name}: closed after {elapsed:.1f} s")
    print(f"(idle timeout {idle_timeout} s, header timeout {header_timeout} s, body rate judged after 10 s)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--idle", type=int, default=20000)
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument("--idle-timeout", type=int, default=10)
    parser.add_argument("--header-timeout", type=int, default=5)
    arguments = parser.parse_args()
    token = register(arguments.port)
    many_parts(arguments.port, arguments.pid, token)
    write_first(arguments.port, token, arguments.tries)
    slow_clients(arguments.port, arguments.idle_timeout, arguments.header_timeout)
    idle_connections(arguments.port, arguments.idle, arguments.idle_timeout)
    metrics = urllib.request.urlopen(f"http://{HOST}:{arguments.port}/metrics", timeout=10).read().decode()
    print("== connections closed by the server (/metrics)")
    for line in metrics.splitlines():
        if line.startswith("burgermap_connections_closed_total"):
            print(line)


if __name__ == "__main__":
    main()
