"""The vector tiles through clients written by others: mapbox-vector-tile (PyPI) decodes every
tile of several zooms, checked against a brute-force count of the places in its bounds and
Web Mercator positions (±1 unit); GDAL's MVT driver (`ogrinfo MVT:`) reads tiles and their
layers; ETags before and after a write change for exactly the tiles that hold the new place."""

import random
import re
import subprocess
import time

import mapbox_vector_tile

from . import mercator

FULL_ZOOMS = [0, 1, 2, 4, 7, 10]
SAMPLED_ZOOMS = [14, 20]


def by_tile(rows: list, zoom: int) -> dict:
    tiles = {}
    for place in rows:
        tiles.setdefault(mercator.tile(place["lat"], place["lng"], zoom), []).append(place)
    return tiles


def check_tile(client, address, members, problems) -> int:
    z, x, y = address
    status, headers, body = client.get(f"/tiles/{z}/{x}/{y}.mvt")
    if status != 200:
        problems.append(f"tile {z}/{x}/{y}: status {status}, expected 200 for {len(members)} places")
        return 0
    if headers.get("content-type") != "application/vnd.mapbox-vector-tile":
        problems.append(f"tile {z}/{x}/{y}: content-type {headers.get('content-type')}")
    layers = mapbox_vector_tile.decode(body, default_options={"y_coord_down": True})
    clusters = layers.get("clusters", {}).get("features", [])
    alone = layers.get("places", {}).get("features", [])
    for layer in layers.values():
        if layer.get("extent") != 4096:
            problems.append(f"tile {z}/{x}/{y}: extent {layer.get('extent')}")
    count = sum(feature["properties"]["count"] for feature in clusters) + len(alone)
    if count != len(members):
        problems.append(f"tile {z}/{x}/{y}: counts add up to {count}, brute force {len(members)}")
    cells = {}
    for place in members:
        cells.setdefault(mercator.cell(place["lat"], place["lng"], z + 2), []).append(place)
    expected_alone = {group[0]["name"]: group[0] for group in cells.values() if len(group) == 1}
    names = {feature["properties"]["name"] for feature in alone}
    if names != set(expected_alone):
        problems.append(f"tile {z}/{x}/{y}: places shown alone differ from those alone in their cell")
    for feature in alone:
        place = expected_alone.get(feature["properties"]["name"])
        if place is None:
            continue
        near(problems, address, feature, mercator.point(place["lat"], place["lng"], address), place["name"])
    by_key = {mercator.cell_key(*key): group for key, group in cells.items()}
    for feature in clusters:
        group = by_key.get(feature.get("id"))
        if group is None or len(group) != feature["properties"]["count"]:
            problems.append(f"tile {z}/{x}/{y}: cluster {feature.get('id')} of {feature['properties']['count']} "
                            "is not one of the tile's cells with its places")
            continue
        lat = sum(p["lat"] for p in group) / len(group)
        lng = sum(p["lng"] for p in group) / len(group)
        near(problems, address, feature, mercator.point(lat, lng, address), f"cluster {feature['id']}")
    return count


def near(problems, address, feature, expected, what):
    fx, fy = feature["geometry"]["coordinates"]
    if abs(fx - expected[0]) > 1 or abs(fy - expected[1]) > 1:
        z, x, y = address
        problems.append(f"tile {z}/{x}/{y}: {what} at ({fx}, {fy}), Web Mercator puts it at {expected}")


def check_counts(client, rows, seed, problems) -> str:
    """Every tile of the full zooms (whose sums must equal the total) and a sample of the fine ones."""
    rng = random.Random(seed)
    fetched = 0
    for zoom in FULL_ZOOMS + SAMPLED_ZOOMS:
        tiles = by_tile(rows, zoom)
        addresses = sorted(tiles)
        if zoom in SAMPLED_ZOOMS:
            edge = [a for a in addresses if a[1] in (0, 2 ** zoom - 1) or a[2] in (0, 2 ** zoom - 1)]
            addresses = sorted(set(rng.sample(addresses, min(150, len(addresses))) + edge))
        total = sum(check_tile(client, address, tiles[address], problems) for address in addresses)
        fetched += len(addresses)
        if zoom in FULL_ZOOMS and total != len(rows):
            problems.append(f"zoom {zoom}: the tiles count {total} places, the dataset has {len(rows)}")
    status, _, _ = client.get("/tiles/10/0/511.mvt")
    if status != 204 and not by_tile(rows, 10).get((10, 0, 511)):
        problems.append(f"an empty tile answered {status}, not 204")
    return f"{fetched} tiles decoded by mapbox-vector-tile, zooms {FULL_ZOOMS} whole and {SAMPLED_ZOOMS} sampled"


def check_gdal(client, rows, problems) -> str:
    """`ogrinfo MVT:` on the densest tiles of three zooms: the layers' feature counts GDAL reads
    equal those mapbox-vector-tile decodes."""
    checked = 0
    for zoom in (3, 9, 15):
        tiles = by_tile(rows, zoom)
        address = max(tiles, key=lambda a: len(tiles[a]))
        z, x, y = address
        _, _, body = client.get(f"/tiles/{z}/{x}/{y}.mvt")
        layers = mapbox_vector_tile.decode(body)
        output = subprocess.run(
            ["ogrinfo", "-ro", "-al", "-so", f"MVT:http://127.0.0.1:{client.port}/tiles/{z}/{x}/{y}.mvt"],
            capture_output=True, text=True, timeout=60).stdout
        counts = dict(re.findall(r"Layer name: (\w+).*?Feature Count: (\d+)", output, re.S))
        expected = {name: str(len(layer["features"])) for name, layer in layers.items()}
        if counts != expected:
            problems.append(f"ogrinfo MVT: tile {z}/{x}/{y} layers {counts}, mapbox-vector-tile {expected}")
        checked += 1
    return f"ogrinfo read {checked} tiles with the same layers and counts"


def check_etags(client, rows, problems, deadline_s=5.0) -> str:
    """Tags of tiles at five zooms around four spots; a place added at one spot must change the
    tags of exactly its tiles (through the event log, within `deadline_s`)."""
    spots = [(35.70, 139.70), (-33.8688, 151.2093), (-17.5, 179.9), (86.0, 10.0)]
    watched = sorted({mercator.tile(lat, lng, zoom) for lat, lng in spots for zoom in (0, 3, 8, 13, 20)})
    before = {address: client.tag(address) for address in watched}
    token = client.member("mapper")
    status, _, _ = client.request("POST", "/v1/places", {"name": "ETag Burger", "lat": 35.70, "lng": 139.70}, token)
    if status != 201:
        problems.append(f"creating a place answered {status}")
        return "no write"
    changed = {mercator.tile(35.70, 139.70, zoom) for zoom in (0, 3, 8, 13, 20)}
    started = time.monotonic()
    after = before
    while time.monotonic() - started < deadline_s:
        after = {address: client.tag(address) for address in watched}
        if all(after[a] != before[a] for a in changed):
            break
        time.sleep(0.02)
    waited = time.monotonic() - started
    for address in watched:
        if (after[address] != before[address]) != (address in changed):
            state = "changed" if after[address] != before[address] else "kept its tag"
            problems.append(f"tile {address} {state} after a write elsewhere" if address not in changed
                            else f"tile {address} kept its tag after a place was added in it")
    rows.append({"name": "ETag Burger", "lat": 35.70, "lng": 139.70, "category": ""})
    return f"{len(changed)} of {len(watched)} tags changed after a write, the rest kept ({waited:.2f} s)"
