"""Write-to-stream latency and idle streams, for scripts/bench-notifications.

Starts `burgermap serve` (SQLite, PostgreSQL, two PostgreSQL instances), registers an author
and a liker, opens the author's stream and times each like from its request to the `data:`
line naming it. Then fills one SQLite instance with STREAMS idle streams (users written to
its database, tokens signed with a BURGERMAP_JWT_SECRET the script sets) and compares
GET /health under wrk beside them with the same server before they opened.
"""
import argparse, asyncio, base64, hashlib, hmac, http.client, json, os, re, signal, socket
import sqlite3, statistics, subprocess, sys, time, urllib.request

JWT_SECRET = "bench-notifications-jwt-secret-0123456789abcdef"
SECRET = "bench-notifications-secret-0123456789abcdef0123"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, (json.loads(data) if data and data[:1] in b"{[" else None)


class Server:
    def __init__(self, binary, folder, database=None, env=None):
        self.port = free_port()
        os.makedirs(folder, exist_ok=True)
        args = [binary, "serve", "--port", str(self.port), "--data-dir", folder, "--access-log", "off",
                "--write-limit", "reaction=100000000/60", "--write-limit", "review=100000000/60"]
        if database:
            args += ["--database", database]
        environment = dict(os.environ, BURGERMAP_SECRET=SECRET, BURGERMAP_JWT_SECRET=JWT_SECRET, **(env or {}))
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(f"{folder}/serve.log", "w"),
                                        env=environment)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if call(self.port, "GET", "/health")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise SystemExit(f"server on {self.port} did not start")

    def rss_mb(self):
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def member(port, name):
    status, body = call(port, "POST", "/v1/auth/register",
                        {"email": f"{name}@example.com", "password": "benchmark password", "nickname": name})
    assert status == 201, (status, body)
    return body["access_token"], body["user"]["id"]


def open_stream(port, token):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/v1/streaming", headers={"Authorization": f"Bearer {token}"})
    response = connection.getresponse()
    assert response.status == 200, response.status
    return connection, response


def read_review_frames(response):
    """Yields the review id of each `event: notification` frame, as it arrives."""
    event, data = None, None
    while True:
        line = response.fp.readline().decode()
        if not line:
            return
        line = line.rstrip("\n")
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data = line[5:].strip()
        elif line == "":
            if event == "notification" and data:
                review = json.loads(data).get("review") or {}
                yield review.get("id")
            event, data = None, None


def latency(write_port, stream_port, likes, label):
    tag = f"{write_port}x{stream_port}"
    author, _ = member(write_port, f"author{tag}")
    liker, _ = member(write_port, f"liker{tag}")
    status, place = call(write_port, "POST", "/v1/places", {"name": "Latency Burger", "lat": 37.5, "lng": 127.0}, author)
    reviews = []
    for index in range(likes):
        boundary = "benchboundary"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"rating\"\r\n\r\n5\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nReview {index}\r\n"
                f"--{boundary}--\r\n").encode()
        connection = http.client.HTTPConnection("127.0.0.1", write_port, timeout=30)
        connection.request("POST", f"/v1/places/{place['id']}/reviews", body,
                           {"Content-Type": f"multipart/form-data; boundary={boundary}",
                            "Authorization": f"Bearer {author}"})
        response = connection.getresponse()
        reviews.append(json.loads(response.read())["id"])
        connection.close()
    stream_connection, stream = open_stream(stream_port, author)
    frames = read_review_frames(stream)
    times = []
    for review in reviews:
        start = time.perf_counter()
        assert call(write_port, "PUT", f"/v1/reviews/{review}/like", token=liker)[0] == 200
        for seen in frames:
            if seen == review:
                break
        times.append((time.perf_counter() - start) * 1000)
    stream_connection.close()
    print(f"  {label:<40} median {statistics.median(times):7.1f} ms   max {max(times):7.1f} ms   ({likes} likes)")
    return statistics.median(times)


def token_for(user):
    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    now = int(time.time())
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = b64(json.dumps({"sub": str(user), "iat": now, "exp": now + 3600}).encode())
    signature = hmac.new(JWT_SECRET.encode(), f"{header}.{claims}".encode(), hashlib.sha256).digest()
    return f"{header}.{claims}.{b64(signature)}"


async def hold_streams(port, tokens, opened):
    """Opens one stream per token (200 connecting at a time) and keeps reading, dropping what
    arrives, until cancelled."""
    connecting = asyncio.Semaphore(200)

    async def one(token):
        async with connecting:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET /v1/streaming HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
            await writer.drain()
            status = await reader.readline()
            if b" 200 " not in status:
                raise RuntimeError(status)
            opened.append(1)
        while await reader.read(4096):
            pass

    await asyncio.gather(*(one(token) for token in tokens), return_exceptions=True)


async def hold_idle_connections(port, count, opened):
    """Opens `count` keep-alive connections that each ask for /health once, then stay idle (a
    baseline: what a connection costs the server without a stream)."""
    connecting = asyncio.Semaphore(200)
    writers = []

    async def one():
        async with connecting:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /health HTTP/1.1\r\nHost: bench\r\n\r\n")
            await writer.drain()
            await reader.readuntil(b"\r\n\r\n")
            writers.append(writer)
            opened.append(1)
        await reader.read(4096)

    await asyncio.gather(*(one() for _ in range(count)), return_exceptions=True)


def wrk_p99(port, seconds=10):
    output = subprocess.run(["wrk", "-t2", "-c50", f"-d{seconds}s", "--latency", f"http://127.0.0.1:{port}/health"],
                            capture_output=True, text=True).stdout
    match = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
    value, unit = float(match.group(1)), match.group(2)
    requests = re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value, float(requests)


def idle_connections(binary, folder, count):
    """The baseline of the RSS figure: a fresh server with as many idle keep-alive connections
    (no stream), measured before its idle timeout (30 s) closes them."""
    server = Server(binary, folder)
    try:
        call(server.port, "GET", "/health")
        rss_before = server.rss_mb()
        loop = asyncio.new_event_loop()
        opened = []
        holder = loop.create_task(hold_idle_connections(server.port, count, opened))
        deadline = time.time() + 25
        while len(opened) < count and time.time() < deadline and not holder.done():
            loop.run_until_complete(asyncio.sleep(0.2))
        loop.run_until_complete(asyncio.sleep(1))
        rss_after = server.rss_mb()
        print(f"  baseline: {len(opened)} idle keep-alive connections, no stream: RSS {rss_before:.0f} MB -> "
              f"{rss_after:.0f} MB, growth {rss_after - rss_before:.0f} MB "
              f"({(rss_after - rss_before) * 1024 / max(len(opened), 1):.1f} KB each)")
        holder.cancel()
    finally:
        server.stop()


def idle_streams(binary, folder, streams):
    users = (streams + 3) // 4
    server = Server(binary, folder)
    server.stop()
    database = sqlite3.connect(f"{folder}/burgermap.sqlite")
    database.executemany(
        "INSERT INTO users (email, email_key, password_hash, nickname, nickname_key, created_at, updated_at) "
        "VALUES (?, ?, 'not a hash', ?, ?, 0, 0)",
        [(f"s{i}@bench", f"s{i}@bench", f"s{i}", f"s{i}") for i in range(users)])
    database.commit()
    ids = [row[0] for row in database.execute("SELECT id FROM users ORDER BY id")]
    database.close()
    server = Server(binary, folder)
    try:
        before_p99, before_rps = wrk_p99(server.port)
        rss_before = server.rss_mb()
        tokens = [token_for(ids[i // 4]) for i in range(streams)]
        opened = []
        loop = asyncio.new_event_loop()
        holder = loop.create_task(hold_streams(server.port, tokens, opened))
        deadline = time.time() + 300
        while len(opened) < streams and time.time() < deadline and not holder.done():
            loop.run_until_complete(asyncio.sleep(0.2))
        if len(opened) < streams:
            raise SystemExit(f"only {len(opened)} of {streams} streams opened")
        loop.run_until_complete(asyncio.sleep(2))
        rss_after = server.rss_mb()
        wrk = loop.run_in_executor(None, wrk_p99, server.port)
        after_p99, after_rps = loop.run_until_complete(wrk)
        print(f"  {streams} idle streams open on one instance (SQLite), {users} users")
        print(f"  GET /health p99 without streams {before_p99:7.2f} ms ({before_rps:,.0f}/s)")
        print(f"  GET /health p99 beside streams  {after_p99:7.2f} ms ({after_rps:,.0f}/s)")
        print(f"  server RSS {rss_before:.0f} MB -> {rss_after:.0f} MB: growth {rss_after - rss_before:.0f} MB "
              f"({(rss_after - rss_before) * 1024 / streams:.1f} KB a stream)")

        holder.cancel()
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--tmp", required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--likes", type=int, default=50)
    parser.add_argument("--streams", type=int, default=10000)
    options = parser.parse_args()
    print("== from a like to the data: line of the author's open stream")
    servers = []
    try:
        sqlite = Server(options.binary, f"{options.tmp}/latency-sqlite")
        servers.append(sqlite)
        latency(sqlite.port, sqlite.port, options.likes, "one instance, SQLite")
        first = Server(options.binary, f"{options.tmp}/latency-pg-a", options.database)
        servers.append(first)
        latency(first.port, first.port, options.likes, "one instance, PostgreSQL")
        second = Server(options.binary, f"{options.tmp}/latency-pg-b", options.database)
        servers.append(second)
        latency(first.port, second.port, options.likes, "like on A, stream on B, PostgreSQL")
    finally:
        for server in servers:
            server.stop()
    print(f"== {options.streams} idle streams")
    idle_streams(options.binary, f"{options.tmp}/streams", options.streams)
    idle_connections(options.binary, f"{options.tmp}/idle", options.streams)


if __name__ == "__main__":
    main()
