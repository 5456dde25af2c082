"""OGC API – Features through clients written by others: GDAL's OAPIF driver copies the whole
`places` collection (every page, at GDAL's default page size and at 1,000) and a `-spat` box,
compared with the dataset; OWSLib reads the collections and the items of a box across the
antimeridian."""

import csv
import os
import subprocess

from owslib.ogcapi.features import Features

from . import mercator


def ogr2ogr(port: int, out: str, *options) -> list:
    if os.path.exists(out):
        os.remove(out)
    subprocess.run(["ogr2ogr", "-f", "CSV", out, f"OAPIF:http://127.0.0.1:{port}/ogc", "places", *options],
                   check=True, capture_output=True, text=True, timeout=600)
    with open(out, newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def check_gdal(port: int, rows: list, work: str, problems) -> str:
    names = sorted(place["name"] for place in rows)
    copied = ogr2ogr(port, os.path.join(work, "oapif-places.csv"))
    if sorted(row.get("name", "") for row in copied) != names:
        problems.append(f"ogr2ogr OAPIF: {len(copied)} places with their names, the dataset {len(rows)}")
    paged = ogr2ogr(port, os.path.join(work, "places-1000.csv"), "-oo", "PAGE_SIZE=1000")
    if len(paged) != len(rows):
        problems.append(f"ogr2ogr OAPIF -oo PAGE_SIZE=1000: {len(paged)} places, the dataset {len(rows)}")
    categories = {place["name"]: place["category"] for place in rows}
    wrong = [row["name"] for row in copied if (row.get("category") or "") != categories.get(row.get("name"), "")]
    if wrong:
        problems.append(f"ogr2ogr OAPIF: {len(wrong)} places with another category, e.g. {wrong[:3]}")
    box = (139.70, 35.65, 139.80, 35.72)
    spat = ogr2ogr(port, os.path.join(work, "spat.csv"), "-spat", *map(str, box))
    expected = sum(1 for place in rows if mercator.in_box(place["lat"], place["lng"], box))
    if len(spat) != expected:
        problems.append(f"ogr2ogr -spat {box}: {len(spat)} places, brute force {expected}")
    return f"ogr2ogr copied {len(copied)} places (default and 1,000 a page), -spat {len(spat)} = brute force"


def check_owslib(port: int, rows: list, problems) -> str:
    service = Features(f"http://127.0.0.1:{port}/ogc")
    ids = {collection["id"] for collection in service.collections()["collections"]}
    if not {"places", "reviews"} <= ids:
        problems.append(f"OWSLib: collections {sorted(ids)}")
    box = (179.5, -18.5, -179.5, -16.5)
    found = []
    page = service.collection_items("places", bbox=list(box), limit=10000)
    found += page["features"]
    expected = sum(1 for place in rows if mercator.in_box(place["lat"], place["lng"], box))
    if len(found) != expected or page.get("numberReturned") != expected:
        problems.append(f"OWSLib: {len(found)} items in {box} (numberReturned {page.get('numberReturned')}), "
                        f"brute force {expected}")
    if page.get("numberMatched") not in (None, expected):
        problems.append(f"OWSLib: numberMatched {page.get('numberMatched')}, brute force {expected}")
    return f"OWSLib read {len(ids)} collections and {len(found)} items across the antimeridian"
