"""The measuring half of scripts/bench-lfrb: the app's requests over one keep-alive connection
(http.client, loopback), with the server's RSS sampled from /proc while the map load is written.
Usage: bench_lfrb.py PORT SERVER_PID RUNS PLACES"""

import http.client
import json
import statistics
import sys
import threading
import time

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

first_bytes, totals, growths = [], [], []
for _ in range(runs):
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
    start = time.perf_counter()
    connection.request("GET", f"/v1/posts?limit=300000&product_id={RESTAURANT}",
                       headers={"SesacKey": KEY, "Authorization": reader.token})
    response = connection.getresponse()
    first = response.read(1)
    first_bytes.append((time.perf_counter() - start) * 1000)
    body = first + response.read()
    totals.append((time.perf_counter() - start) * 1000)
    done.set()
    sampler.join()
    growths.append((peak[0] - before) / 1024)
    answer = json.loads(body)
    if response.status != 200 or len(answer["data"]) != places + 1 or answer["next_cursor"] != "0":
        sys.exit(f"map load: {response.status}, {len(answer['data'])} posts")
    connection.close()

print(f"map load ({places + 1} posts, {len(body) / 1e6:.1f} MB): first byte {statistics.median(first_bytes):.1f} ms, "
      f"whole {statistics.median(totals):.0f} ms, RSS growth {statistics.median(growths):.1f} MB (max {max(growths):.1f})")
print(f"review feed page (21): {feed:.2f} ms; restaurant post with 50 reviews: {post:.2f} ms; /health {health:.2f} ms")
