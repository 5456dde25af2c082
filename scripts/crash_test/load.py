"""The writers: one thread per user, each making seeded random writes through the HTTP API and
recording in the model what the service acknowledged."""

import http.client
import random
import re
import threading
import time

from .media import multipart
from .model import DELETED, LIVE, MAYBE
from .service import Gate, call

# How often each write is picked.
WEIGHTS = {
    "review": 22, "review_delete": 5, "review_edit": 5, "like": 20, "bookmark": 10,
    "comment": 15, "comment_delete": 5, "follow": 12, "avatar": 3, "refresh": 3,
}
# Reviews go to a few places, so that their counts, rating sums and covers change often.
PLACES = 20
PASSWORD = "crash test password"


class Worker(threading.Thread):
    def __init__(self, index, user, users, seed, model, gate, port, jpegs, stop):
        super().__init__(name=f"writer-{index}", daemon=True)
        self.index = index
        self.user = user  # dict(id, email, access, refresh, refresh_known)
        self.others = [u["id"] for u in users if u["id"] != user["id"]]
        self.rng = random.Random(seed * 1000 + index)
        self.model = model
        self.gate = gate
        self.port = port
        self.jpegs = jpegs
        self.stop = stop
        self.serial = 0
        self.error = None
        self.sent = 0.0  # wall-clock time the last write was sent

    def run(self):
        kinds, weights = zip(*WEIGHTS.items())
        try:
            while not self.stop.is_set():
                self.retry_pending()
                kind = self.rng.choices(kinds, weights)[0]
                getattr(self, "do_" + kind)()
        except Gate.Closed:
            pass
        except Exception as error:  # a bug in this script: reported, and the run fails
            self.error = error
            raise

    # --- sending

    def send(self, kind, method, path, body=None, headers=None, auth=True):
        """One write. Answers the Answer, or None when the answer was lost (counted unknown).
        A 401 on a signed-in route signs in again and resends once."""
        self.sent = time.time()  # (a sign-in's send moves it on: the 401 before committed nothing)
        for attempt in range(2):
            generation = self.gate.enter()
            try:
                answer = call(self.port, method, path, body, headers, self.user["access"] if auth else None)
            except (OSError, http.client.HTTPException) as error:
                self.lost(kind, generation, error)
                return None
            finally:
                self.gate.leave()
            if answer.status == 401 and auth and attempt == 0:
                if not self.sign_in():
                    return None
                continue
            if answer.status >= 500:
                self.model.violation("server errors", f"{method} {path}: {answer.status} {answer.body[:200]!r}")
            if answer.ok:
                with self.model.lock:
                    self.model.acknowledged[kind] += 1
            return answer
        return answer

    def lost(self, kind, generation, error):
        with self.model.lock:
            self.model.unknown[kind] += 1
        if generation == self.gate.generation:
            self.model.violation("transport errors while up", f"{kind}: {error!r}")

    def note(self, op, answer, **info):
        """Logs the write just answered (or lost): its event, if any, has a time in its window."""
        self.model.note(self.user["id"], op, answer, (self.sent, time.time()), **info)

    def sign_in(self):
        """Logs in again (after a refresh whose answer was lost, say)."""
        answer = self.send("login", "POST", "/v1/auth/login",
                           {"email": self.user["email"], "password": PASSWORD}, auth=False)
        if answer is None or not answer.ok:
            if answer is not None:
                self.model.violation("refused", f"login of user {self.user['id']}: {answer.status}")
            return False
        self.take_tokens(answer.json())
        return True

    def take_tokens(self, tokens):
        self.user["access"] = tokens["access_token"]
        self.user["refresh"] = tokens["refresh_token"]
        self.user["refresh_known"] = True

    def token(self, what):
        self.serial += 1
        return f"u{self.user['id']}-{what}{self.serial}"

    # --- reviews

    def do_review(self):
        token = self.token("r")
        count = self.rng.randint(1, 3)
        rating = self.rng.randint(1, 5)
        files = [("photo", name, data) for name, data in self.rng.sample(self.jpegs, count)]
        body, content_type = multipart([("rating", str(rating)), ("text", f"crash test review {token}")], files)
        spec = dict(author=self.user["id"], place=self.rng.randint(1, PLACES), rating=rating, photos=count,
                    token=token, body=body, content_type=content_type, attempts=0)
        with self.model.lock:
            self.model.pending_reviews[token] = spec
        self.send_review(spec)

    def send_review(self, spec):
        """Sends (or resends, with the same Idempotency-Key) a review creation."""
        spec["attempts"] += 1
        answer = self.send("review" if spec["attempts"] == 1 else "review retry", "POST",
                           f"/v1/places/{spec['place']}/reviews", spec["body"],
                           {"Content-Type": spec["content_type"], "Idempotency-Key": spec["token"]})
        self.note("review", answer, token=spec["token"], value=spec["rating"])
        if answer is None:
            return
        if answer.status != 201:
            with self.model.lock:
                self.model.pending_reviews.pop(spec["token"], None)
            self.model.violation("refused", f"review {spec['token']}: {answer.status} {answer.body[:200]!r}")
            return
        review = answer.json()
        if (len(review["photos"]) != spec["photos"] or review["rating"] != spec["rating"]
                or review["author"]["id"] != spec["author"] or not review["text"].endswith(spec["token"])):
            self.model.violation("wrong answers", f"review {spec['token']} answered {review}")
        self.model.review_created(spec["token"], review, spec)

    def retry_pending(self, limit=5):
        """Resends this user's review creations whose answers were lost: the Idempotency-Key makes
        the service answer the stored review if the first one committed, or create it now."""
        with self.model.lock:
            mine = [s for s in self.model.pending_reviews.values()
                    if s["author"] == self.user["id"] and s["attempts"] < limit]
        for spec in mine:
            self.send_review(spec)

    def own_review(self):
        mine = self.model.own_reviews(self.user["id"])
        return self.rng.choice(mine) if mine else None

    def review_gone(self, rid, what):
        """A 404 for the user's own review: only this user deletes it, so it must have been one of
        this user's deletes whose answer was lost."""
        with self.model.lock:
            review = self.model.reviews[rid]
            if review["state"] == LIVE:
                self.model.violations["lost"].append(f"review {rid} ({review['token']}) vanished: {what} 404")
            review["state"] = DELETED

    def do_review_delete(self):
        rid = self.own_review()
        if rid is None:
            return
        answer = self.send("review_delete", "DELETE", f"/v1/reviews/{rid}")
        self.note("review_delete", answer, subject=rid)
        with self.model.lock:
            review = self.model.reviews[rid]
            if answer is None:
                review["state"] = MAYBE if review["state"] != DELETED else DELETED
                return
        if answer.status == 204:
            with self.model.lock:
                self.model.reviews[rid]["state"] = DELETED
        elif answer.status == 404:
            self.review_gone(rid, "delete")
        else:
            self.model.violation("refused", f"delete review {rid}: {answer.status}")

    def do_review_edit(self):
        rid = self.own_review()
        if rid is None:
            return
        rating = self.rng.randint(1, 5)
        answer = self.send("review_edit", "PATCH", f"/v1/reviews/{rid}", {"rating": rating})
        self.note("review_edit", answer, subject=rid, value=rating)
        with self.model.lock:
            review = self.model.reviews[rid]
            if answer is None:
                review["ratings"].add(rating)
                return
        if answer.ok:
            with self.model.lock:
                review["ratings"] = {rating}
            if answer.json()["rating"] != rating:
                self.model.violation("wrong answers", f"edit review {rid}: {answer.json()}")
        elif answer.status == 404:
            self.review_gone(rid, "edit")
        else:
            self.model.violation("refused", f"edit review {rid}: {answer.status}")

    # --- likes, bookmarks, follows

    def toggle(self, kind, target, path, field, note_gone):
        active = self.rng.random() < 0.6
        answer = self.send(kind, "PUT" if active else "DELETE", path)
        self.note(kind, answer, subject=target, value=active)
        key = (self.user["id"], target)
        if answer is None:
            with self.model.lock:
                self.model.pairs[kind][key] = None
        elif answer.ok:
            with self.model.lock:
                self.model.pairs[kind][key] = active
            if answer.json().get(field) != active:
                self.model.violation("wrong answers", f"{kind} {key}: {answer.json()}")
        elif answer.status == 404 and note_gone:
            with self.model.lock:
                self.model.not_found.append((kind, target, target))
        else:
            self.model.violation("refused", f"{kind} {key}: {answer.status} {answer.body[:200]!r}")

    def do_like(self):
        reviews = self.model.live_reviews()
        if reviews:
            rid = self.rng.choice(reviews)
            self.toggle("like", rid, f"/v1/reviews/{rid}/like", "liked", True)

    def do_bookmark(self):
        reviews = self.model.live_reviews()
        if reviews:
            rid = self.rng.choice(reviews)
            self.toggle("bookmark", rid, f"/v1/reviews/{rid}/bookmark", "bookmarked", True)

    def do_follow(self):
        other = self.rng.choice(self.others)
        self.toggle("follow", other, f"/v1/users/{other}/follow", "following", False)

    # --- comments

    def do_comment(self):
        reviews = self.model.live_reviews()
        if not reviews:
            return
        rid = self.rng.choice(reviews)
        token = self.token("c")
        answer = self.send("comment", "POST", f"/v1/reviews/{rid}/comments", {"text": f"crash test comment {token}"})
        self.note("comment", answer, review=rid, token=token,
                  subject=answer.json()["id"] if answer is not None and answer.status == 201 else None)
        with self.model.lock:
            if answer is None:
                self.model.comment_tokens[token] = None
            elif answer.status == 201:
                comment = answer.json()
                self.model.comment_tokens[token] = comment["id"]
                self.model.comments[comment["id"]] = dict(review=rid, author=self.user["id"], token=token, state=LIVE)
            elif answer.status == 404:
                self.model.not_found.append(("comment", None, rid))
            else:
                self.model.violations["refused"].append(f"comment on {rid}: {answer.status}")

    def do_comment_delete(self):
        mine = self.model.own_comments(self.user["id"])
        if not mine:
            return
        cid = self.rng.choice(mine)
        answer = self.send("comment_delete", "DELETE", f"/v1/comments/{cid}")
        self.note("comment_delete", answer, subject=cid, review=self.model.comments[cid]["review"])
        with self.model.lock:
            comment = self.model.comments[cid]
            if answer is None:
                comment["state"] = MAYBE
            elif answer.status == 204:
                comment["state"] = DELETED
            elif answer.status == 404:
                # Gone with its review, or by a delete whose answer was lost.
                if comment["state"] == LIVE:
                    self.model.not_found.append(("comment_delete", cid, comment["review"]))
                comment["state"] = DELETED
            else:
                self.model.violations["refused"].append(f"delete comment {cid}: {answer.status}")

    # --- account

    def do_avatar(self):
        name, data = self.rng.choice(self.jpegs)
        body, content_type = multipart([], [("avatar", name, data)])
        answer = self.send("avatar", "PUT", "/v1/users/me/avatar", body, {"Content-Type": content_type})
        self.note("avatar", answer, subject=self.user["id"])
        with self.model.lock:
            if answer is None:
                self.model.avatars[self.user["id"]] = None
                return
        if not answer.ok:
            self.model.violation("refused", f"avatar of {self.user['id']}: {answer.status}")
            return
        match = re.fullmatch(r"/v1/photos/(\d+)(?:\.jpg|/thumbnail\.jpg)", answer.json().get("avatar_url") or "")
        if not match:
            self.model.violation("wrong answers", f"avatar answer {answer.json()}")
            return
        with self.model.lock:
            self.model.avatars[self.user["id"]] = int(match.group(1))
            self.model.photo_ids[int(match.group(1))] = ("avatar", self.user["id"])

    def do_refresh(self):
        answer = self.send("refresh", "POST", "/v1/auth/refresh", {"refresh_token": self.user["refresh"]}, auth=False)
        if answer is None:
            self.user["refresh_known"] = False  # it may have been used: reusing it revokes the login
            return
        if answer.ok:
            self.take_tokens(answer.json())
        elif answer.status == 401 and not self.user["refresh_known"]:
            self.sign_in()
        else:
            self.model.violation("lost", f"acknowledged refresh token of user {self.user['id']} refused: {answer.status}")
            self.sign_in()
