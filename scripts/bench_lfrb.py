"""The measuring half of scripts/bench-lfrb: the app's requests over one keep-alive connection
(http.client, loopback), with the server's RSS sampled from /proc while the map load is written.
Usage: bench_lfrb.py PORT SERVER_PID RUNS PLACES"""

import http.client
import json
import statistics
import sys
import threading
import time
import zlib

port, pid, runs, places = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
KEY = "bench-key"
RESTAURANT, REVIEW = "LFRB_BURGER_HOUSE_TEST", "LFRB_BURGER_HOUSE_REVIEW_TEST"


class App:
    def __init__(self):
        self.connection = http.client.HTTPConnection("127.0.0.1", port)
        self.token = ""

    def call(self, method, path, body=None):
        headers = {"SesacKey": KEY, "Authorization": self.token}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        payload = response.read()
        if response.status != 200:
            sys.exit(f"{method} {path}: {response.status} {payload[:200]!r}")
        return json.loads(payload) if payload else None

    def join(self, nick):
        self.call("POST", "/v1/users/join", {"email": f"{nick}@example.com", "password": "bench-password", "nick": nick})
        login = self.call("POST", "/v1/users/login", {"email": f"{nick}@example.com", "password": "bench-password"})
        self.token = login["accessToken"]


def rss_kb():
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def median_ms(app, method, path, count=101):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        app.call(method, path)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


writer = App()
writer.join("benchwriter")
# A restaurant with 50 reviews, and the feed's reviews.
restaurant = writer.call("POST", "/v1/posts", {
    "title": "Bench Burgers", "content": "#Bench Burgers", "content1": "126.978", "content2": "37.5665",
    "content3": "", "content4": "", "content5": "bench-1", "product_id": RESTAURANT})["post_id"]
for index in range(50):
    writer.call("POST", "/v1/posts", {"title": f"Review {index}", "price": 1 + index % 5, "content": "Juicy and hot.",
                                      "content1": restaurant, "product_id": REVIEW, "files": []})
reader = App()
reader.join("benchreader")

health = median_ms(reader, "GET", "/health")
feed = median_ms(reader, "GET", f"/v1/posts?limit=21&product_id={REVIEW}")
post = median_ms(reader, "GET", f"/v1/posts/{restaurant}")

def map_load(accept_encoding):
    """One map load on a fresh connection: time to first byte, whole answer, RSS growth, JSON size."""
    connection = http.client.HTTPConnection("127.0.0.1", port)
    before = rss_kb()
    peak = [before]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_kb())
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    headers = {"SesacKey": KEY, "Authorization": reader.token}
    if accept_encoding:
        headers["Accept-Encoding"] = accept_encoding
    start = time.perf_counter()
    connection.request("GET", f"/v1/posts?limit=300000&product_id={RESTAURANT}", headers=headers)
    response = connection.getresponse()
    first = response.read(1)
    first_byte = (time.perf_counter() - start) * 1000
    body = first + response.read()
    total = (time.perf_counter() - start) * 1000
    done.set()
    sampler.join()
    sent = len(body)
    if response.getheader("Content-Encoding") == "gzip":
        body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
    answer = json.loads(body)
    if response.status != 200 or len(answer["data"]) != places + 1 or answer["next_cursor"] != "0":
        sys.exit(f"map load: {response.status}, {len(answer['data'])} posts")
    connection.close()
    return first_byte, total, (peak[0] - before) / 1024, len(body), sent


# As the app's Alamofire session asks (its default Accept-Encoding: gzip is chosen), and uncompressed.
for label, encoding in [("as the app asks (gzip)", "br;q=1.0, gzip;q=0.9, deflate;q=0.8"), ("identity", None)]:
    results = [map_load(encoding) for _ in range(runs)]
    growths = [r[2] for r in results]
    print(f"map load, {label}: {places + 1} posts, {results[0][3] / 1e6:.1f} MB of JSON, {results[0][4] / 1e6:.1f} MB "
          f"sent; first byte {statistics.median(r[0] for r in results):.1f} ms, whole "
          f"{statistics.median(r[1] for r in results):.0f} ms, RSS growth {statistics.median(growths):.1f} MB "
          f"(max {max(growths):.1f})")
print(f"review feed page (21): {feed:.2f} ms; restaurant post with 50 reviews: {post:.2f} ms; /health {health:.2f} ms")
