"""What the service acknowledged, and therefore must still hold after any crash.

A write answered 2xx is acknowledged: its effect must survive every later kill. A write whose
answer never came (the service was killed while it ran) is unknown: either outcome is right,
until a later acknowledged write on the same thing settles it. Each user is driven by one
thread only, so a user's writes reach the service one after the other and the last
acknowledged one decides its state."""

import collections
import threading

LIVE, DELETED, MAYBE = "live", "deleted", "maybe deleted"


class Model:
    def __init__(self):
        self.lock = threading.Lock()
        self.reviews = {}  # id -> dict(author, place, ratings, token, photos, state)
        self.review_ids = []  # every acknowledged review id, for random picks
        self.pending_reviews = {}  # token -> creation whose answer was lost (retried with its Idempotency-Key)
        self.review_tokens = {}  # token -> id of an acknowledged creation
        self.pairs = {"like": {}, "bookmark": {}, "follow": {}}  # (actor, target) -> True / False / None
        self.comments = {}  # id -> dict(review, author, token, state)
        self.comment_tokens = {}  # token -> id, or None while the creation's answer was lost
        self.avatars = {}  # user -> photo id of the last acknowledged avatar, None when unknown
        self.photo_ids = {}  # photo id an acknowledged answer named -> ("review", id) or ("avatar", user)
        self.not_found = []  # (what, id, review id) answered 404: the review must be gone at the end
        self.writes = []  # every write that may record an event, in the order each user sent it (note)
        self.acknowledged = collections.Counter()
        self.unknown = collections.Counter()
        self.violations = collections.defaultdict(list)  # category -> messages

    def violation(self, category, message):
        with self.lock:
            self.violations[category].append(message)

    def note(self, actor, op, answer, window, subject=None, value=None, review=None, token=None):
        """Logs one write for the events check (events.py): its outcome ("ok": 2xx, "lost": no
        answer, "refused": any other answer) and its window, the wall-clock milliseconds (floored,
        as the service floors an event's time) from just before it was sent to just after it ended."""
        outcome = "lost" if answer is None else "ok" if answer.ok else "refused"
        with self.lock:
            self.writes.append(dict(actor=actor, op=op, outcome=outcome, t0=int(window[0] * 1000),
                                    t1=int(window[1] * 1000), subject=subject, value=value, review=review, token=token))

    def review_created(self, token, review, spec):
        with self.lock:
            self.pending_reviews.pop(token, None)
            self.review_tokens[token] = review["id"]
            self.reviews[review["id"]] = dict(
                author=spec["author"], place=spec["place"], ratings={spec["rating"]}, token=token,
                photos=spec["photos"], state=LIVE, rating=spec["rating"])
            self.review_ids.append(review["id"])
            self.photo_ids.update((photo["id"], ("review", review["id"])) for photo in review["photos"])

    def live_reviews(self):
        """Review ids that are not known to be deleted."""
        with self.lock:
            return [rid for rid in self.review_ids if self.reviews[rid]["state"] != DELETED]

    def own_reviews(self, user):
        with self.lock:
            return [rid for rid in self.review_ids
                    if self.reviews[rid]["author"] == user and self.reviews[rid]["state"] != DELETED]

    def own_comments(self, user):
        with self.lock:
            return [cid for cid, c in self.comments.items() if c["author"] == user and c["state"] != DELETED]
