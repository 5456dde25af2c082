"""The checks: straight in the SQLite file and the photo folder (after every restart and at the
end), and through the HTTP API (at the end)."""

import os
import re
import sqlite3
import urllib.parse

from .model import DELETED, LIVE

# Every count the schema keeps beside the rows it counts, with its recount.
RECOUNTS = {
    "reviews.like_count": "SELECT id, like_count, (SELECT count(*) FROM review_likes WHERE review_id = r.id) FROM reviews AS r",
    "reviews.bookmark_count": "SELECT id, bookmark_count, (SELECT count(*) FROM review_bookmarks WHERE review_id = r.id) FROM reviews AS r",
    "reviews.comment_count": "SELECT id, comment_count, (SELECT count(*) FROM comments WHERE review_id = r.id) FROM reviews AS r",
    "users.follower_count": "SELECT id, follower_count, (SELECT count(*) FROM follows WHERE followee_id = u.id) FROM users AS u",
    "users.following_count": "SELECT id, following_count, (SELECT count(*) FROM follows WHERE follower_id = u.id) FROM users AS u",
    "places.review_count": "SELECT id, review_count, (SELECT count(*) FROM reviews WHERE place_id = p.id) FROM places AS p",
    "places.rating_sum": "SELECT id, rating_sum, (SELECT coalesce(sum(rating), 0) FROM reviews WHERE place_id = p.id) FROM places AS p",
    # The cover is the first photo of the place's newest review with photos.
    "places.cover_photo_id": """
        SELECT id, cover_photo_id, (
            SELECT ph.id FROM reviews AS r JOIN photos AS ph ON ph.review_id = r.id
            WHERE r.place_id = p.id ORDER BY r.created_at DESC, r.id DESC, ph.position LIMIT 1)
        FROM places AS p""",
}

PAIR_TABLES = {"like": ("review_likes", "user_id", "review_id"),
               "bookmark": ("review_bookmarks", "user_id", "review_id"),
               "follow": ("follows", "follower_id", "followee_id")}

TOKEN = re.compile(r"crash test (?:review|comment) (\S+)$")


def is_jpeg(path):
    with open(path, "rb") as file:
        data = file.read()
    return len(data) > 4 and data[:2] == b"\xff\xd8" and data[-2:] == b"\xff\xd9"


def check_store(model, data_dir, report, when, flagged=None):
    """Checks the database file and the photo folder against the model; adds what is wrong to
    `report` (category -> messages). Nothing may be writing while it runs. Right after a start
    every committed photo has both files at their final names (the start settles every dead
    process's incoming/ folder) and no final name lacks its row. `flagged`: a set kept from
    check to check, so that a file fault (an orphan or a missing file) still there at a later
    check is reported once over the run; without it each check reports everything it sees."""
    def bad(category, message, key=None):
        if key is not None and flagged is not None:
            if (category, key) in flagged:
                return
            flagged.add((category, key))
        report.setdefault(category, []).append(f"[{when}] {message}")

    db = sqlite3.connect(f"file:{os.path.join(data_dir, 'burgermap.sqlite')}?mode=ro", uri=True)
    try:
        if (result := db.execute("PRAGMA quick_check").fetchone()[0]) != "ok":
            bad("corrupt", f"quick_check: {result}")
        for row in db.execute("PRAGMA foreign_key_check"):
            bad("corrupt", f"foreign key: {row}")
        for name, sql in RECOUNTS.items():
            for rid, stored, recount in db.execute(sql):
                if stored != recount:
                    bad("count mismatches", f"{name} of {rid} is {stored}, recount {recount}")
        with model.lock:
            check_rows(db, model, bad)
        check_files(db, data_dir, bad)
    finally:
        db.close()


def check_rows(db, model, bad):
    reviews = {rid: (author, place, rating, text) for rid, author, place, rating, text
               in db.execute("SELECT id, author_id, place_id, rating, text FROM reviews")}
    photo_counts = dict(db.execute("SELECT review_id, count(*) FROM photos WHERE review_id IS NOT NULL GROUP BY review_id"))
    for rid, expected in model.reviews.items():
        row = reviews.get(rid)
        if expected["state"] == DELETED:
            if row is not None:
                bad("lost", f"review {rid} was deleted (acknowledged) but is there")
            continue
        if row is None:
            if expected["state"] == LIVE:
                bad("lost", f"acknowledged review {rid} ({expected['token']}) is missing")
            continue
        author, place, rating, text = row
        if author != expected["author"] or place != expected["place"] or not text.endswith(expected["token"]):
            bad("lost", f"review {rid} holds {row}, expected {expected}")
        if rating not in expected["ratings"]:
            bad("lost", f"review {rid} has rating {rating}, acknowledged {sorted(expected['ratings'])}")
        if photo_counts.get(rid, 0) != expected["photos"]:
            bad("lost", f"review {rid} has {photo_counts.get(rid, 0)} photos, acknowledged {expected['photos']}")
    for what, target, rid in model.not_found:
        if rid in reviews:
            bad("lost", f"{what} {target} answered 404, yet review {rid} is there")
    seen = {}
    for rid, (_, _, _, text) in reviews.items():
        match = TOKEN.search(text)
        token = match.group(1) if match else None
        if token in seen:
            bad("duplicates", f"reviews {seen[token]} and {rid} are one creation ({token})")
        seen[token] = rid
        known = model.review_tokens.get(token)
        if known is None and token not in model.pending_reviews:
            bad("phantoms", f"review {rid} ({text!r}) was never acknowledged nor in flight")
        elif known is not None and known != rid:
            bad("duplicates", f"review {rid} repeats acknowledged review {known} ({token})")

    for kind, (table, actor, target) in PAIR_TABLES.items():
        stored = set(db.execute(f"SELECT {actor}, {target} FROM {table}"))
        exists = (lambda t: t in reviews) if kind != "follow" else (lambda t: True)
        for key, state in model.pairs[kind].items():
            if state is True and key not in stored and exists(key[1]):
                bad("lost", f"acknowledged {kind} {key} is missing")
            elif state is False and key in stored:
                bad("lost", f"acknowledged removal of {kind} {key} undone")
        for key in stored - set(model.pairs[kind]):
            bad("phantoms", f"{kind} {key} was never sent")

    comments = {cid: (review, author, text) for cid, review, author, text
                in db.execute("SELECT id, review_id, author_id, text FROM comments")}
    for cid, expected in model.comments.items():
        row = comments.get(cid)
        if expected["state"] == DELETED and row is not None:
            bad("lost", f"comment {cid} was deleted (acknowledged) but is there")
        elif expected["state"] == LIVE and row is None and expected["review"] in reviews:
            bad("lost", f"acknowledged comment {cid} is missing")
        elif row is not None and (row[0] != expected["review"] or not row[2].endswith(expected["token"])):
            bad("lost", f"comment {cid} holds {row}, expected {expected}")
    for cid, (_, _, text) in comments.items():
        match = TOKEN.search(text)
        token = match.group(1) if match else None
        if token not in model.comment_tokens:
            bad("phantoms", f"comment {cid} ({text!r}) was never sent")
        elif model.comment_tokens[token] not in (None, cid):
            bad("duplicates", f"comment {cid} repeats acknowledged comment {model.comment_tokens[token]}")

    avatars = dict(db.execute("SELECT id, avatar_photo_id FROM users"))
    for user, photo in model.avatars.items():
        if photo is not None and avatars.get(user) != photo:
            bad("lost", f"user {user} has avatar {avatars.get(user)}, acknowledged {photo}")
    in_use = set(avatars.values())
    for (pid,) in db.execute("SELECT id FROM photos WHERE review_id IS NULL"):
        if pid not in in_use:
            bad("orphan rows", f"avatar photo {pid} belongs to nobody")


def check_files(db, data_dir, bad):
    """Each fault is keyed by its file's name (`bad` reports a key once when asked to)."""
    photos = os.path.join(data_dir, "photos")
    ids = {pid for (pid,) in db.execute("SELECT id FROM photos")}
    for pid in sorted(ids):
        for name in (f"{pid}.jpg", f"{pid}.thumb.jpg"):
            path = os.path.join(photos, name)
            if not os.path.exists(path):
                bad("missing files", f"photo {pid}: {name} is missing", name)
            elif not is_jpeg(path):
                bad("missing files", f"photo {pid}: {name} is not a whole JPEG", name)
    for name in os.listdir(photos):
        if name == "incoming":
            continue
        match = re.fullmatch(r"(\d+)(\.thumb)?\.jpg", name)
        if not match or int(match.group(1)) not in ids:
            bad("orphan files", f"photos/{name} has no row", name)
    # Folders of incoming/ are checked with the photos (photos.py); a loose file is a leftover.
    for name in os.listdir(os.path.join(photos, "incoming")):
        if not os.path.isdir(os.path.join(photos, "incoming", name)):
            bad("orphan files", f"photos/incoming/{name} left behind", os.path.join("incoming", name))


def check_api(call, port, users, data_dir, report):
    """Reads everything back through the HTTP API and compares it with the database file."""
    def bad(category, message):
        report.setdefault(category, []).append(f"[api] {message}")

    def get(path, token=None):
        answer = call(port, "GET", path, token=token)
        return answer

    def pages(path, token=None):
        items, cursor = [], None
        for _ in range(1000):
            separator = "&" if "?" in path else "?"
            url = f"{path}{separator}limit=100" + (f"&cursor={urllib.parse.quote(cursor)}" if cursor else "")
            answer = get(url, token)
            if answer.status != 200:
                bad("api", f"GET {url}: {answer.status}")
                return items
            page = answer.json()
            items += page["items"]
            cursor = page.get("next_cursor")
            if not cursor:
                return items
        return items

    db = sqlite3.connect(f"file:{os.path.join(data_dir, 'burgermap.sqlite')}?mode=ro", uri=True)
    requests = 0
    try:
        photos_dir = os.path.join(data_dir, "photos")
        review_ids = [rid for (rid,) in db.execute("SELECT id FROM reviews ORDER BY id")]
        for rid in review_ids:
            answer = get(f"/v1/reviews/{rid}")
            requests += 1
            if answer.status != 200:
                bad("lost", f"GET /v1/reviews/{rid}: {answer.status}")
                continue
            review = answer.json()
            counts = db.execute(
                "SELECT (SELECT count(*) FROM review_likes WHERE review_id = ?1),"
                " (SELECT count(*) FROM review_bookmarks WHERE review_id = ?1),"
                " (SELECT count(*) FROM comments WHERE review_id = ?1)", (rid,)).fetchone()
            if (review["like_count"], review["bookmark_count"], review["comment_count"]) != counts:
                bad("count mismatches", f"review {rid} shows {review['like_count']}/{review['bookmark_count']}/"
                                        f"{review['comment_count']}, recount {counts}")
            stored = [pid for (pid,) in db.execute("SELECT id FROM photos WHERE review_id = ? ORDER BY position", (rid,))]
            if [p["id"] for p in review["photos"]] != stored:
                bad("lost", f"review {rid} shows photos {[p['id'] for p in review['photos']]}, stored {stored}")
            for photo in review["photos"]:
                for url, name in ((photo["url"], f"{photo['id']}.jpg"), (photo["thumbnail_url"], f"{photo['id']}.thumb.jpg")):
                    served = get(url)
                    requests += 1
                    path = os.path.join(photos_dir, name)
                    if served.status != 200 or not os.path.exists(path) or open(path, "rb").read() != served.body:
                        bad("missing files", f"GET {url}: {served.status}, not the stored file")
            comments = pages(f"/v1/reviews/{rid}/comments")
            stored = {cid for (cid,) in db.execute("SELECT id FROM comments WHERE review_id = ?", (rid,))}
            if {c["id"] for c in comments} != stored or len(comments) != len(stored):
                bad("lost", f"review {rid} lists comments {sorted(c['id'] for c in comments)}, stored {sorted(stored)}")
        for user in users:
            uid = user["id"]
            profile = get(f"/v1/users/{uid}").json()
            counts = db.execute(
                "SELECT (SELECT count(*) FROM reviews WHERE author_id = ?1), (SELECT count(*) FROM follows WHERE followee_id = ?1),"
                " (SELECT count(*) FROM follows WHERE follower_id = ?1)", (uid,)).fetchone()
            if (profile["review_count"], profile["follower_count"], profile["following_count"]) != counts:
                bad("count mismatches", f"user {uid} shows {profile['review_count']}/{profile['follower_count']}/"
                                        f"{profile['following_count']}, recount {counts}")
            for path, sql in ((f"/v1/me/likes", "SELECT review_id FROM review_likes WHERE user_id = ?"),
                              (f"/v1/me/bookmarks", "SELECT review_id FROM review_bookmarks WHERE user_id = ?"),
                              (f"/v1/users/{uid}/following", "SELECT followee_id FROM follows WHERE follower_id = ?")):
                listed = [item["id"] for item in pages(path, user["access"])]
                stored = {row[0] for row in db.execute(sql, (uid,))}
                if set(listed) != stored or len(listed) != len(stored):
                    bad("lost", f"{path} of user {uid} lists {sorted(listed)}, stored {sorted(stored)}")
        for place, count, rating_sum in db.execute("SELECT id, review_count, rating_sum FROM places WHERE review_count > 0"):
            shown = get(f"/v1/places/{place}").json()
            if shown["review_count"] != count or abs(shown["rating_avg"] - rating_sum / count) > 0.01:
                bad("count mismatches", f"place {place} shows {shown['review_count']} reviews, "
                                        f"{shown['rating_avg']} average; stored {count}, {rating_sum}")
    finally:
        db.close()
    return requests
