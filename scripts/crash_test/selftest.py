"""Plants one fault of each kind in a checked data folder and makes sure the checks see each,
so that a run's zeros mean something."""

import os
import shutil
import sqlite3

from .events import check_events
from .photos import Scan
from .service import call
from .verify import check_store


def plant_and_check(model, data_dir):
    """Answers the fault kinds the checks missed (empty when all were caught): each kind must be
    found once more per planted fault than before the planting. The service must be idle; the
    data folder is spoiled afterwards."""
    baseline = {}
    check_store(model, data_dir, baseline, "self-test baseline")
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
    return missed(baseline, report, expected)


def missed(baseline, report, expected):
    misses = []
    for kind, count in expected.items():
        before, after = len(baseline.get(kind, [])), len(report.get(kind, []))
        if after - before != count:
            misses.append(f"{kind}: found {after}, {before} before planting, planted {count}")
    return misses


def plant_photo_faults(data_dir, ledger, service, model):
    """Plants a file at a final name with no row (it must not be served), gives a served photo's
    file another photo's bytes, and gives a row to the id of a file that lay without one in a
    dead process's incoming/ folder (a reused id). Answers the kinds missed; the ledger reports
    each fault once, so each kind must be found exactly once per planted fault."""
    def check(report, when):
        ledger.check(call, service.port, data_dir, Scan(data_dir, service.started_at), model, report, when)

    baseline, report = {}, {}
    check(baseline, "self-test baseline")
    photos = os.path.join(data_dir, "photos")
    db = sqlite3.connect(os.path.join(data_dir, "burgermap.sqlite"))
    rows = {pid for (pid,) in db.execute("SELECT id FROM photos")}
    served = sorted((pid for (pid, thumb) in ledger.served if not thumb and pid in rows),
                    key=lambda pid: ledger.served[(pid, False)][0])
    changed, other = next((a, b) for a, b in zip(served, served[1:])
                          if ledger.served[(a, False)][0] != ledger.served[(b, False)][0])
    shutil.copyfile(os.path.join(photos, f"{other}.jpg"), os.path.join(photos, f"{changed}.jpg"))
    shutil.copyfile(os.path.join(photos, f"{other}.jpg"), os.path.join(photos, "999999997.jpg"))
    reused = 999999998
    folder = os.path.join(photos, "incoming", "self-test-dead-process")
    os.mkdir(folder)
    shutil.copyfile(os.path.join(photos, f"{other}.jpg"), os.path.join(folder, f"{reused}.jpg"))
    check(report, "self-test 1")
    owner = db.execute("SELECT owner_id FROM photos WHERE id = ?", (other,)).fetchone()[0]
    db.execute("INSERT INTO photos (id, owner_id, review_id, position, width, height, created_at)"
               " VALUES (?, ?, NULL, 0, 1, 1, 0)", (reused, owner))
    db.commit()
    db.close()
    check(report, "self-test 2")
    return missed({}, report, {"served without row": 1, "content changed": 1, "reused ids": 1})


def plant_event_faults(model, data_dir):
    """Takes away the review.created of an acknowledged review, adds a like of a review that never
    was and a copy of the last event of the load (a second event of one write, or one that
    matches no write), and puts an email into a payload. Answers the kinds missed."""
    baseline, report = {}, {}
    check_events(model, data_dir, baseline, "self-test baseline")
    with model.lock:
        review = max(model.reviews)
        user = model.reviews[review]["author"]
    db = sqlite3.connect(os.path.join(data_dir, "burgermap.sqlite"))
    db.execute("DELETE FROM events WHERE kind = 'review.created' AND subject = ?", (review,))
    db.execute("INSERT INTO events (time, kind, actor, subject, payload) SELECT time, kind, actor, subject, payload"
               " FROM events WHERE actor IS NOT NULL ORDER BY id DESC LIMIT 1")
    db.execute("INSERT INTO events (time, kind, actor, subject, payload)"
               " SELECT max(time) + 1, 'review.liked', ?, 999999999, '{\"user\":1}' FROM events", (user,))
    db.execute("UPDATE events SET payload = '{\"email\":\"crash@test\"}' WHERE id = (SELECT min(id) FROM events"
               " WHERE kind IN ('user.followed', 'user.unfollowed', 'user.avatar_changed'))")
    db.commit()
    db.close()
    check_events(model, data_dir, report, "self-test events")
    misses = missed(baseline, report, {"missing events": 1, "event payloads": 1})
    # The copy is a phantom, or an extra event of a write that repeated the last one.
    counts = [len(r.get("phantom events", [])) + len(r.get("extra events", [])) for r in (baseline, report)]
    if counts[1] - counts[0] != 2:
        misses.append(f"phantom or extra events: found {counts[1]}, {counts[0]} before planting, planted 2")
    return misses
