"""A dataset the service has never seen, seeded: a dense city, both sides of the antimeridian,
both poles (beyond the Mercator limit and at ±90), many places on one point, the rest of the
world; names in Korean, Japanese and Latin letters, some categories."""

import csv
import random

CATEGORIES = ["burger", "fast_food", "diner", ""]


def places(seed: int, count: int) -> list:
    rng = random.Random(seed)
    rows = []

    def add(lat, lng):
        index = len(rows)
        name = ["버거집", "バーガー屋", "Burger Joint", "Smash & Co"][index % 4] + f" {index}"
        rows.append({"id": f"m{index}", "name": name, "lat": round(lat, 7), "lng": round(lng, 7),
                     "category": CATEGORIES[index % 4]})

    for _ in range(count * 4 // 10):
        add(35.68 + rng.uniform(-0.05, 0.05), 139.76 + rng.uniform(-0.07, 0.07))
    for _ in range(count // 10):
        offset = rng.uniform(-0.8, 0.8)
        add(rng.uniform(-18.5, -16.5), 180 + offset if offset < 0 else -180 + offset)
    for _ in range(count // 20):
        add(rng.uniform(84.9, 90), rng.uniform(-180, 180))
        add(rng.uniform(-90, -84.9), rng.uniform(-180, 180))
    for _ in range(30):
        add(-33.8688, 151.2093)
    for lat, lng in [(0, 180), (0, -180), (90, 0), (-90, 0), (0, 0)]:
        add(lat, lng)
    while len(rows) < count:
        add(rng.uniform(-90, 90), rng.uniform(-180, 180))
    return rows


def write_csv(path: str, rows: list):
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=["id", "name", "lat", "lng", "category"])
        writer.writeheader()
        writer.writerows(rows)
