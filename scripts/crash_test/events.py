"""The `events` table against the load's writes (docs/events.md), after every start and at the end.

Known of each write (model.note): its user, subject, outcome (acknowledged: a 2xx answer; lost:
no answer, the service was killed while it ran, so it committed or not; refused: any other
answer, nothing committed) and window, the wall-clock ms from just before it was sent to just
after it ended. The service takes an event's `time` in the handler, from the same clock, floored
to ms: a write's event lies in its window. A user's writes are sent one after the other by one
thread, so they commit in that order, and on SQLite ids grow in commit order. No answer says
whether a write changed anything ({liked, like_count}, a Review...): replaying the writes does.

1. Attribution. Each event of the load's kinds goes to one write of its actor: in id order, to
   the earliest write after the previous event's, acknowledged or lost, of its kind (PUT like:
   review.liked, DELETE: review.unliked...) and subject, whose window holds its time (a lost
   comment creation, id unknown, matches by the payload's `review`); one no write takes is a
   phantom. Review creations go by review id instead (a resend with the same Idempotency-Key
   commits nothing new): each review acknowledged, or in the database with the text of a
   creation whose answer was lost, has exactly one review.created (actor its author, `place` its
   place, time its created_at and within one of its sends), and no other review has one.
2. Replay. Per (kind, actor, subject) the writes are replayed in order from the start (no like,
   bookmark or follow; a review at its creation's rating; no avatar):
   - an acknowledged write has exactly one event if it changed the state (a like of a review not
     liked, an unlike of a liked one, follows likewise, any accepted edit of a live review (even
     to the rating it has: an edit moves updated_at, docs/events.md), a delete, an avatar, a
     comment) and none if it changed nothing (liking twice, unfollowing someone not followed);
   - a lost write may have one event, only if it would have changed the state; whether it has
     one says whether it committed, and the replay goes on from there;
   - the end state must be the database's: a like, bookmark or follow row exists iff the replay
     says set, made at its event's time; a review is there iff no review.deleted, at the
     replayed rating; a comment is there iff no comment.deleted (or its review is gone: deleting
     a review takes its likes, bookmarks and comments with no events of theirs); a comment there
     with a lost creation's text has its event, and that creation's event names a comment there
     with its text, or one whose review is gone; an avatar photo was made at the time of its
     user's last avatar event.
   So acknowledged writes that changed something have exactly one event each, and writes in
   flight at a kill have one only as far as the database shows them committed.
3. Ids and payloads. Ids are unique; per user, time never goes back in id order; an event seen
   by an earlier check is still there unchanged, and each new one has a larger id than all seen
   before. A payload is JSON with exactly its kind's members, valued as the write implies (the
   review's place, the review's or comment's author...), holding no '@', 'password' or 'token'.
   The only other events allowed are the initial import's (places.imported, actor null).
"""

import collections
import contextlib
import json
import os
import sqlite3

from .event_replay import attribute, replay
from .verify import PAIR_TABLES, TOKEN

MEMBERS = {**dict.fromkeys(("review.created", "review.edited", "review.deleted"), {"place"}),
           **dict.fromkeys(("review.liked", "review.unliked", "review.bookmarked", "review.unbookmarked"), {"user"}),
           **dict.fromkeys(("comment.created", "comment.deleted"), {"review", "user"}),
           **dict.fromkeys(("user.followed", "user.unfollowed", "user.avatar_changed"), set())}
IMPORT = "places.imported"
NOTIFICATION = "notification.updated"
FORBIDDEN = ("@", "password", "token")


class EventLedger:
    """What the earlier checks saw (events never change or vanish), and the last check's counts."""

    def __init__(self):
        self.seen = {}
        self.stats = collections.Counter()
        self.kinds = collections.Counter()
        self.reported = set()

    def note(self):
        s = self.stats
        return (f"events {s['events']} ({s['load events']} of the load, {s['import events']} of the import): "
                f"{s['acknowledged, changed']} acknowledged writes changed something (one event each), "
                f"{s['acknowledged, no change']} nothing (none); lost writes: {s['lost, committed']} committed "
                f"(event), {s['lost, no event']} without event (not committed, or changed nothing)")


class Store:
    """The rows the events are compared with."""

    def __init__(self, db):
        self.reviews = {rid: dict(author=a, place=p, rating=r, created=c, token=token(t)) for rid, a, p, r, c, t
                        in db.execute("SELECT id, author_id, place_id, rating, created_at, text FROM reviews")}
        self.comments = {cid: dict(review=r, author=a, created=c, token=token(t)) for cid, r, a, c, t
                         in db.execute("SELECT id, review_id, author_id, created_at, text FROM comments")}
        self.comment_tokens = {c["token"]: cid for cid, c in self.comments.items()}
        self.pairs = {op: dict(((a, t), c) for a, t, c in db.execute(f"SELECT {actor}, {target}, created_at FROM {table}"))
                      for op, (table, actor, target) in PAIR_TABLES.items()}
        self.avatars = dict(db.execute(
            "SELECT u.id, p.created_at FROM users AS u LEFT JOIN photos AS p ON p.id = u.avatar_photo_id"))


def token(text):
    match = TOKEN.search(text or "")
    return match.group(1) if match else None


def check_events(model, data_dir, report, when, ledger=None):
    """Checks the events table against the model (see the module's text); adds what is wrong to
    `report`. Nothing may be writing while it runs. `ledger` (kept from check to check) adds the
    checks against earlier checks and keeps the counts."""
    def bad(category, message):
        if ledger is None or (category, message) not in ledger.reported:  # each fault once over a run
            report.setdefault(category, []).append(f"[{when}] {message}")
        if ledger is not None:
            ledger.reported.add((category, message))

    db = sqlite3.connect(f"file:{os.path.join(data_dir, 'burgermap.sqlite')}?mode=ro", uri=True)
    with contextlib.closing(db):
        rows = db.execute("SELECT id, time, kind, actor, subject, payload FROM events ORDER BY id").fetchall()
        distinct, store = db.execute("SELECT count(DISTINCT id) FROM events").fetchone()[0], Store(db)
        check_notifications(db, rows, bad)
    with model.lock:
        writes = [dict(w, event=None) for w in model.writes]
        reviews = {rid: dict(r) for rid, r in model.reviews.items()}
        pending = {t: (s["author"], s["place"]) for t, s in model.pending_reviews.items()}
    stats = collections.Counter(events=len(rows))
    events = check_ids(rows, distinct, ledger, bad)
    load = []
    for e in events:
        if e["kind"] in MEMBERS and e["actor"] is not None:
            load.append(e)
        elif e["kind"] == IMPORT and e["actor"] is None and e["subject"] == 0:
            stats["import events"] += 1
        elif e["kind"] == NOTIFICATION and e["actor"] is None and set(e["payload"]) == {"user"}:
            stats["notification events"] += 1
        else:
            bad("phantom events", f"event {e['id']} ({e['kind']}, actor {e['actor']}): the load makes no such write")
    stats["load events"] = len(load)
    check_creations([e for e in load if e["kind"] == "review.created"], writes, reviews, pending, store, bad, stats)
    attribute([e for e in load if e["kind"] != "review.created"], writes, reviews, bad)
    replay(writes, reviews, store, bad, stats)
    if ledger is not None:
        ledger.stats, ledger.kinds = stats, collections.Counter(e["kind"] for e in events)
    return stats


def check_notifications(db, rows, bad):
    """The notification worker's rows after a kill: its progress never passes the last event; each
    group's count is its entries; each group's last change is an event of its own."""
    progress = db.execute("SELECT last_event_id FROM notification_progress").fetchone()[0]
    if rows and progress > rows[-1][0]:
        bad("notifications", f"the worker's progress {progress} is past the last event {rows[-1][0]}")
    for group, count, entries in db.execute(
            "SELECT g.id, g.count, (SELECT count(*) FROM notification_entries WHERE group_id = g.id) "
            "FROM notification_groups AS g"):
        if count != entries:
            bad("notifications", f"group {group} counts {count} but holds {entries} entries")
    kinds = {row[0]: (row[2], row[4]) for row in rows}
    for group, changed in db.execute("SELECT id, changed_event_id FROM notification_groups"):
        if changed in kinds and kinds[changed] != (NOTIFICATION, group):
            bad("notifications", f"group {group}'s last change {changed} is a {kinds[changed][0]} event")


def check_ids(rows, distinct, ledger, bad):
    """Ids, per-user order, what earlier checks saw, payloads; answers the events, payloads read."""
    if distinct != len(rows):
        bad("event ids", f"{len(rows) - distinct} duplicate ids")
    for a, b in zip(rows, rows[1:]):
        if b[0] <= a[0]:
            bad("event ids", f"id {b[0]} follows id {a[0]}")
    if ledger is not None:
        current = {row[0]: row for row in rows}
        for eid, row in ledger.seen.items():
            if current.get(eid) != row:
                bad("event ids", f"event {row} seen before is now {current.get(eid)}")
        top = max(ledger.seen, default=0)
        for eid in current.keys() - ledger.seen.keys():
            if eid < top:
                bad("event ids", f"event {eid} is new since the last check but below its highest id {top}")
        ledger.seen = current
    events, last = [], {}
    for eid, time, kind, actor, subject, text in rows:
        payload = parse(text)
        found = [word for word in FORBIDDEN if word in text.lower()]
        expected = MEMBERS.get(kind, {"source", "count", "bounds", "places"} if kind == IMPORT else None)
        if found or not isinstance(payload, dict) or (expected is not None and not (
                set(payload) == expected or kind == IMPORT and set(payload) == expected - {"places"})):
            bad("event payloads", f"event {eid} ({kind}): payload {text!r}" + (f" holds {found}" if found else ""))
            payload = payload if isinstance(payload, dict) else {}
        if actor is not None and time < last.get(actor, (0, 0))[1]:
            bad("event ids", f"event {eid} of user {actor} has time {time}, before event {last[actor][0]}'s")
        last[actor] = (eid, time)
        events.append(dict(id=eid, time=time, kind=kind, actor=actor, subject=subject, payload=payload))
    return events


def parse(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def check_creations(created, writes, reviews, pending, store, bad, stats):
    """review.created: exactly one per review acknowledged or committed, none for any other."""
    windows = collections.defaultdict(list)
    for w in writes:
        if w["op"] == "review" and w["outcome"] != "refused":
            windows[w["token"]].append((w["t0"], w["t1"]))
    expected = {rid: (r["author"], r["place"], r["token"], True) for rid, r in reviews.items()}
    for rid, row in store.reviews.items():
        if rid not in expected and row["token"] in pending:
            expected[rid] = pending[row["token"]] + (row["token"], False)
    by_review = collections.defaultdict(list)
    for e in created:
        by_review[e["subject"]].append(e)
    for rid, (author, place, tok, acknowledged) in expected.items():
        found = by_review.pop(rid, [])
        stats["acknowledged, changed" if acknowledged else "lost, committed"] += 1
        if not found:
            bad("missing events", f"review {rid} ({tok}, {'acknowledged' if acknowledged else 'committed'}) has no review.created")
            continue
        e, row = found[0], store.reviews.get(rid)
        for extra in found[1:]:
            bad("extra events", f"event {extra['id']}: a second review.created for review {rid}")
        if e["actor"] != author or e["payload"].get("place") != place:
            bad("wrong events", f"event {e['id']} for review {rid}: actor {e['actor']}, {e['payload']}; "
                                f"author {author}, place {place}")
        if not any(t0 <= e["time"] <= t1 for t0, t1 in windows[tok]) or (row and row["created"] != e["time"]):
            bad("event times", f"event {e['id']} (review {rid} created) at {e['time']}: outside its sends "
                               f"{windows[tok]} or unlike the row's {row and row['created']}")
    for rid, found in by_review.items():
        for e in found:
            bad("phantom events", f"event {e['id']}: review.created for review {rid}, never acknowledged nor in the database")
