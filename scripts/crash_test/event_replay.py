"""The events check's attribution of events to writes and its replay of each key's writes: the
rules are in events.py's text (1. and 2.)."""

import collections

KINDS = {  # the kind a write of the load records: op -> kind, or (kind when set, kind when taken back)
    "review": "review.created", "review_edit": "review.edited", "review_delete": "review.deleted",
    "like": ("review.liked", "review.unliked"), "bookmark": ("review.bookmarked", "review.unbookmarked"),
    "follow": ("user.followed", "user.unfollowed"), "comment": "comment.created",
    "comment_delete": "comment.deleted", "avatar": "user.avatar_changed",
}
GROUPS = {"review_edit": "review", "review_delete": "review", "comment": "comment",
          "comment_delete": "comment", "avatar": "avatar"}  # what else than toggles is replayed together


def kind_of(write):
    kind = KINDS[write["op"]]
    return kind if isinstance(kind, str) else kind[0 if write["value"] else 1]


def expected_payload(w, reviews):
    op, review = w["op"], reviews.get(w["review"] if w["op"] == "comment" else w["subject"], {})
    return ({"place": review["place"]} if op in ("review_edit", "review_delete") else
            {"user": review["author"]} if op in ("like", "bookmark") else
            {"review": w["review"], "user": review["author"]} if op == "comment" else
            {"review": w["review"], "user": w["actor"]} if op == "comment_delete" else {})


def attribute(events, writes, reviews, bad):
    """Gives each event to a write (events.py, 1.)."""
    mine = collections.defaultdict(list)
    for w in writes:
        if w["op"] != "review" and w["outcome"] != "refused":
            mine[w["actor"]].append(w)
    passed = collections.Counter()  # actor -> index of the first write a next event may take
    for e in events:
        ws, taken = mine.get(e["actor"], []), None
        for i in range(passed[e["actor"]], len(ws)):
            w = ws[i]
            if w["t0"] > e["time"]:
                break
            if w["t1"] >= e["time"] and kind_of(w) == e["kind"] and (w["subject"] == e["subject"] or (
                    w["subject"] is None and w["review"] == e["payload"].get("review"))):
                taken, passed[e["actor"]] = w, i + 1
                break
        if taken is None:
            bad("phantom events", f"event {e['id']} ({e['kind']}, actor {e['actor']}, subject {e['subject']}, "
                                  f"time {e['time']}) matches no acknowledged or lost write")
            continue
        taken["event"] = e
        payload = expected_payload(taken, reviews)
        if any(e["payload"].get(k) != v for k, v in payload.items()):
            bad("wrong events", f"event {e['id']} ({e['kind']}): payload {e['payload']}, expected {payload}")


def replay(writes, reviews, store, bad, stats):
    """Replays each key's writes (events.py, 2.)."""
    def settle(w, changes):
        """Whether the write took effect; reports an event that is missing or should not be."""
        e, what = w["event"], f"{w['outcome']} {w['op']} of user {w['actor']} on {w['subject'] or w['review']}"
        if w["outcome"] == "ok":
            stats["acknowledged, changed" if changes else "acknowledged, no change"] += 1
            if changes and e is None:
                bad("missing events", f"acknowledged {what} (value {w['value']}) changed it but has no {kind_of(w)}")
        else:
            stats["lost, committed" if e else "lost, no event"] += 1
        if e is not None and not changes:
            bad("extra events", f"event {e['id']} ({e['kind']}) for the {what} (value {w['value']}), which changed nothing"
                                + (" (the review had that rating)" if w["op"] == "review_edit" else ""))
        return w["outcome"] == "ok" or e is not None

    groups = collections.defaultdict(list)
    for w in writes:
        if w["outcome"] == "refused" or w["op"] == "review":
            continue
        if w["op"] == "comment" and w["subject"] is None:
            lost_comment(w, store, bad, stats)
        elif w["op"] in ("like", "bookmark", "follow"):
            groups[(w["op"], w["actor"], w["subject"])].append(w)
        else:
            groups[(GROUPS[w["op"]], w["actor"], w["subject"])].append(w)
    for (op, actor, subject), ws in groups.items():
        if op == "avatar":
            continue  # below, with every user
        if op in ("like", "bookmark", "follow"):
            state, since = False, None
            for w in ws:
                if settle(w, state != w["value"]) and state != w["value"]:
                    state, since = w["value"], w["event"] and w["event"]["time"]
            if op == "follow" or subject in store.reviews:
                row = store.pairs[op].get((actor, subject))
                if (row is not None) != state:
                    bad("events vs rows", f"{op} ({actor}, {subject}): row {'there' if row else 'absent'}, "
                                          f"events say {'set' if state else 'not set'}")
                elif row is not None and since is not None and row != since:
                    bad("event times", f"{op} ({actor}, {subject}) row made at {row}, its event at {since}")
        elif op == "review":
            rating, alive = reviews[subject]["rating"], True
            for w in ws:
                if w["op"] == "review_edit":
                    if settle(w, alive):
                        rating = w["value"] if alive else rating
                elif settle(w, alive):
                    alive = False
            row = store.reviews.get(subject)
            if (row is not None) != alive or (row and row["rating"] != rating):
                bad("events vs rows", f"review {subject}: {row and 'rating ' + str(row['rating']) or 'absent'}; "
                                      f"events say {'rating ' + str(rating) if alive else 'deleted'}")
        elif op == "comment":
            alive, review = False, ws[0]["review"]
            for w in ws:
                if settle(w, not alive if w["op"] == "comment" else alive):
                    alive = w["op"] == "comment"
            row = store.comments.get(subject)
            created = ws[0]["event"] if ws[0]["op"] == "comment" else None
            if row is not None and not alive or row is None and alive and review in store.reviews:
                bad("events vs rows", f"comment {subject}: {'there' if row else 'absent'} (review {review} "
                                      f"{'there' if review in store.reviews else 'gone'}), events say {'live' if alive else 'deleted'}")
            elif row is not None and created is not None and row["created"] != created["time"]:
                bad("event times", f"comment {subject} made at {row['created']}, its event at {created['time']}")
    for user, made in store.avatars.items():
        last = "none"  # the time of the last avatar event; None when an acknowledged one lacks it
        for w in groups.get(("avatar", user, user), []):
            if settle(w, True):
                last = w["event"] and w["event"]["time"]
        if last == "none" and made is not None or last not in ("none", None, made):
            bad("events vs rows", f"user {user}'s avatar photo made at {made}, last avatar event at {last}")


def lost_comment(w, store, bad, stats):
    """A comment creation whose answer was lost: its event, if any, names a comment there with its
    text, or one whose review is gone; a comment there with its text has its event."""
    e, committed = w["event"], store.comment_tokens.get(w["token"])
    stats["lost, committed" if e or committed else "lost, no event"] += 1
    if e is None:
        if committed is not None:
            bad("missing events", f"comment {committed} ({w['token']}, in flight) is there but has no comment.created")
        return
    row = store.comments.get(e["subject"])
    if row is None and w["review"] in store.reviews or row is not None and row["token"] != w["token"]:
        bad("phantom events", f"event {e['id']}: comment.created of comment {e['subject']} for {w['token']}, "
                              f"but that comment is {row and row['token'] or 'absent'} with review {w['review']} there")
    elif row is not None and row["created"] != e["time"]:
        bad("event times", f"comment {e['subject']} made at {row['created']}, its event at {e['time']}")
