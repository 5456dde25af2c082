"""The HTTP halves of scripts/bench-tiles (standard library only).

    bench_tiles.py screens BASE OUTPUT.lua [--screens N] [--seed N]
        Screens as MapLibre loads them: a 1280 x 800 view is 5 x 3 tiles of one zoom; SCREENS
        views at random points of the benchmark's dense 100 km square around Seoul and random
        zooms 10-16 (seeded). Fetches every tile once with `Accept-Encoding: gzip` (as a browser
        asks), which builds and caches it, checks that its tag now answers 304, and writes the
        paths and their tags as a Lua table for scripts/tiles.lua.

    bench_tiles.py write-to-tile A B [--writes N] [--seed N]
        A place created through instance A: how long until instance B's tile at its position
        (zoom 10-16, cached on B before the write) answers a new ETag, polled every 10 ms.
        Prints each delay from A's answer and the median; exits 1 when one exceeds 1 s."""

import argparse
import http.client
import json
import math
import random
import statistics
import sys
import time
import urllib.parse

CENTER_LAT, CENTER_LNG, SIDE_KM = 37.5665, 126.9780, 100
LAT_SPAN = SIDE_KM / 111.195
LNG_SPAN = LAT_SPAN / math.cos(math.radians(CENTER_LAT))


def tile_of(lat, lng, zoom):
    """The XYZ tile holding a position (Web Mercator)."""
    n = 2**zoom
    x = int((lng + 180) / 360 * n)
    phi = math.radians(lat)
    y = int((1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * n)
    return min(max(x, 0), n - 1), min(max(y, 0), n - 1)


def random_point(rng):
    return (CENTER_LAT + (rng.random() - 0.5) * LAT_SPAN, CENTER_LNG + (rng.random() - 0.5) * LNG_SPAN)


class Client:
    """One keep-alive connection to a server."""

    def __init__(self, base):
        self.host = urllib.parse.urlsplit(base).netloc
        self.connection = http.client.HTTPConnection(self.host, timeout=30)

    def request(self, method, path, headers=None, body=None):
        self.connection.request(method, path, body=body, headers=headers or {})
        response = self.connection.getresponse()
        return response.status, response.headers, response.read()


def screens(arguments):
    rng = random.Random(arguments.seed)
    paths = []
    for _ in range(arguments.screens):
        lat, lng = random_point(rng)
        zoom = rng.randint(10, 16)
        x, y = tile_of(lat, lng, zoom)
        # MapLibre asks for the centre's tiles first, then outwards; the order matters little.
        paths += [f"/tiles/{zoom}/{x + dx}/{y + dy}.mvt" for dy in (0, -1, 1) for dx in (0, -1, 1, -2, 2)]
    client = Client(arguments.base)
    gzip = {"Accept-Encoding": "gzip, deflate, br"}
    tags, statuses, sizes = {}, {}, []
    for path in dict.fromkeys(paths):
        status, headers, body = client.request("GET", path, gzip)
        statuses[status] = statuses.get(status, 0) + 1
        tags[path] = headers["ETag"]
        sizes.append(len(body))
    stale = 0
    for path, tag in tags.items():
        status, _, _ = client.request("GET", path, {**gzip, "If-None-Match": tag})
        stale += status != 304
    if stale:
        sys.exit(f"{stale} of {len(tags)} tags did not answer 304 right after the warming fetch")
    with open(arguments.output, "w") as out:
        out.write("tiles = {\n")
        for path in paths:
            out.write(f'  {{"{path}", {json.dumps(tags[path])}}},\n')
        out.write("}\n")
    print(f"{arguments.screens} screens, {len(paths)} tile requests, {len(tags)} distinct tiles warmed "
          f"(statuses {statuses}); gzip body median {statistics.median(sizes)} bytes, max {max(sizes)}; "
          f"every tag answered 304")


def write_to_tile(arguments):
    a, b = Client(arguments.a), Client(arguments.b)
    suffix = random.randrange(1 << 30)  # a fresh account on every run against one database
    email = f"tiles{suffix}@bench.example"
    status, _, body = a.request("POST", "/v1/auth/register", {"Content-Type": "application/json"}, json.dumps(
        {"email": email, "password": "bench-tiles-password", "nickname": f"tilebench{suffix}"}).encode())
    if status != 201 and status != 200:
        sys.exit(f"register: HTTP {status} {body[:200]!r}")
    token = json.loads(body)["access_token"]
    rng = random.Random(arguments.seed)
    delays, from_send = [], []
    for number in range(arguments.writes):
        lat, lng = random_point(rng)
        zoom = rng.randint(10, 16)
        path = "/tiles/%d/%d/%d.mvt" % (zoom, *tile_of(lat, lng, zoom))
        b.request("GET", path)  # builds and caches the tile on B
        _, headers, _ = b.request("GET", path)
        before = headers["ETag"]
        sent = time.monotonic()
        status, _, body = a.request("POST", "/v1/places", {
            "Content-Type": "application/json", "Authorization": "Bearer " + token},
            json.dumps({"name": f"Tile Bench #{number}", "lat": lat, "lng": lng}).encode())
        answered = time.monotonic()
        if status != 201:
            sys.exit(f"create a place: HTTP {status} {body[:200]!r}")
        while True:
            _, headers, _ = b.request("GET", path)
            seen = time.monotonic()
            if headers["ETag"] != before:
                break
            if seen - answered > 5:
                sys.exit(f"{path}: B's tile unchanged 5 s after the write on A")
            time.sleep(0.01)
        delays.append((seen - answered) * 1000)
        from_send.append((seen - sent) * 1000)
    print(f"{len(delays)} places created through A: B's tile answered a new ETag "
          f"{statistics.median(delays):.1f} ms after A's answer (median; max {max(delays):.1f}, "
          f"from the request's sending {statistics.median(from_send):.1f} ms), polled every 10 ms")
    print("  each (ms): " + " ".join(f"{delay:.0f}" for delay in delays))
    if max(delays) > 1000:
        sys.exit("a write took more than 1 s to reach B's tile")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    screen = commands.add_parser("screens")
    screen.add_argument("base")
    screen.add_argument("output")
    screen.add_argument("--screens", type=int, default=200)
    screen.add_argument("--seed", type=int, default=11)
    write = commands.add_parser("write-to-tile")
    write.add_argument("a")
    write.add_argument("b")
    write.add_argument("--writes", type=int, default=20)
    write.add_argument("--seed", type=int, default=5)
    arguments = parser.parse_args()
    {"screens": screens, "write-to-tile": write_to_tile}[arguments.command](arguments)


if __name__ == "__main__":
    main()
