"""Plants one fault of each kind in a checked data folder and makes sure the checks see each,
so that a run's zeros mean something."""

import os
import sqlite3

from .verify import check_store


def plant_and_check(model, data_dir):
    """Answers the fault kinds the checks missed (empty when all were caught). The service must
    be idle; the data folder is spoiled afterwards."""
    db = sqlite3.connect(os.path.join(data_dir, "burgermap.sqlite"))
    reviews = {rid for (rid,) in db.execute("SELECT id FROM reviews")}
    with model.lock:
        liked = next(key for key, state in model.pairs["like"].items() if state is True and key[1] in reviews)
    db.execute("DELETE FROM review_likes WHERE user_id = ? AND review_id = ?", liked)  # its trigger keeps the count
    db.execute("UPDATE reviews SET comment_count = comment_count + 1 WHERE id = ?", (min(reviews),))
    photo = db.execute("SELECT min(id) FROM photos").fetchone()[0]
    db.commit()
    db.close()
    photos = os.path.join(data_dir, "photos")
    os.remove(os.path.join(photos, f"{photo}.thumb.jpg"))
    for name in ("999999999.jpg", os.path.join("incoming", "left-over.jpg")):
        with open(os.path.join(photos, name), "wb") as file:
            file.write(b"\xff\xd8\xff\xd9")
    report = {}
    check_store(model, data_dir, report, "self-test")
    expected = {"lost": 1, "count mismatches": 1, "missing files": 1, "orphan files": 2}
    return [f"{kind}: found {len(report.get(kind, []))}, planted {count}"
            for kind, count in expected.items() if len(report.get(kind, [])) != count]
