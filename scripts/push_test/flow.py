"""The end-to-end run on one engine: `burgermap serve` with the push flags, four users, a review,
subscriptions on the receiver, then the steps, each printed as one PASS or FAIL line.

Users: A (subscribed twice with Accept-Language ko: `steady`, which always answers 201, and `a1`,
which the steps script; later `a2`), B (subscribed once with en: `b1`), C and D. Every wait
polls the receiver's record against a deadline; nothing sleeps a fixed time."""

import http.client
import os
import time
import traceback

from cryptography.hazmat.primitives.asymmetric import ec

from . import webpush
from .service import Server, multipart

SUBJECT = "mailto:ops@example.org"
PASSWORD = "push test password"
PUSH_WAIT = 20  # s for a push to arrive (deliveries are asynchronous; the first retry is ~1 s)
RESTART_WAIT = 75  # s for a stored delivery to arrive after a restart: its backoff, or a lost claim's lease
SETTLE = 0.5  # s of quiet on a2 after a failed try before the kill (see step_kill)
GONE_WAIT = 15  # s for a subscription answered 410 to leave the list


class Abort(Exception):
    """The flow cannot go on: a request failed or a push never came."""


class Report:
    """One line per step; the closing `push-test: N passed, M failed, K skipped`."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def step(self, engine, name, problems, seconds, detail):
        if problems:
            self.failed += 1
            print(f"FAIL {engine:<10} {name:<26} {seconds:5.1f} s  {problems[0]}", flush=True)
            for problem in problems[1:12]:
                print(f"     {'':<10} {'':<26}          {problem}", flush=True)
            if len(problems) > 12:
                print(f"     {'':<10} {'':<26}          … and {len(problems) - 12} more", flush=True)
        else:
            self.passed += 1
            print(f"PASS {engine:<10} {name:<26} {seconds:5.1f} s  {detail or ''}", flush=True)

    def skip(self, engine, name, reason):
        self.skipped += 1
        print(f"SKIP {engine:<10} {name:<26}          {reason}", flush=True)

    def failure(self, engine, name, problem):
        self.step(engine, name, [problem], 0, None)

    def summary(self) -> str:
        return f"push-test: {self.passed} passed, {self.failed} failed, {self.skipped} skipped"


class EngineRun:
    def __init__(self, engine, binary, work, receiver, report, database_url=None):
        self.engine, self.binary, self.work = engine, binary, work
        self.receiver, self.report, self.database_url = receiver, report, database_url
        self.server = None
        self.users = {}  # name → {"id", "token"}
        self.subscriptions: dict[str, webpush.Subscription] = {}
        self.ids = {}  # what happened → its notification_id
        self.gone = None  # the notification answered 410 (never delivered, by design)
        self.reported = set()  # records whose problems a step has printed
        self.vapid_key = None
        self.env_key = None  # our BURGERMAP_VAPID_PRIVATE_KEY (PostgreSQL), or None (generated)

    # --- plumbing --------------------------------------------------------------------------

    def path(self, name):
        return f"/push/{self.engine}/{name}"

    def api(self, method, path, user=None, expect=(200,), **options):
        token = self.users[user]["token"] if user else None
        try:
            answer = self.server.call(method, path, token=token, **options)
        except (OSError, http.client.HTTPException) as error:
            raise Abort(f"{method} {path}: {error!r}{self.dead()}") from None
        if expect and answer.status not in expect:
            raise Abort(f"{method} {path} as {user or 'nobody'}: expected {'/'.join(map(str, expect))}, got {answer}")
        return answer

    def dead(self) -> str:
        if self.server and not self.server.alive():
            return f" (the service exited with {self.server.process.returncode})\n{self.server.log_tail()}"
        return ""

    def since(self, name, mark, records=None):
        path = self.path(name)
        records = self.receiver.snapshot() if records is None else records
        return [record for record in records if record.path == path and record.sequence > mark]

    def wait(self, what, predicate, timeout=PUSH_WAIT):
        """Polls the receiver's record until `predicate(records)` answers something true."""
        found = self.receiver.wait_until(predicate, timeout, alive=self.server.alive)
        if found:
            return found
        mine = [record for record in self.receiver.snapshot() if record.path.startswith(self.path(""))]
        seen = "; ".join(record.describe() + (f" [{record.problems[0]}]" if record.problems else "")
                         for record in mine[-6:]) or "nothing"
        state = "the service exited" if not self.server.alive() else f"not within {timeout:g} s"
        raise Abort(f"{what}: {state}; the receiver's latest requests: {seen}{self.dead()}")

    def problems_of(self, records, problems):
        """Adds the rule breaks of `records` not yet printed by an earlier step."""
        for record in records:
            if record.sequence not in self.reported:
                self.reported.add(record.sequence)
                problems.extend(f"{record.describe()}: {problem}" for problem in record.problems)

    @staticmethod
    def check(problems, condition, message):
        if not condition:
            problems.append(message)
        return condition

    def subscribe(self, user, subscription, language, expect=(201,)):
        self.receiver.add(subscription)
        answer = self.api("POST", "/v1/push/subscriptions", user, expect=expect,
                          body={"endpoint": self.receiver.url(subscription.path), "keys": subscription.keys()},
                          headers={"Accept-Language": language})
        return answer.json() or {}

    def listed(self, user):
        answer = self.api("GET", "/v1/push/subscriptions", user)
        items = (answer.json() or {}).get("items")
        if not isinstance(items, list):
            raise Abort(f"GET /v1/push/subscriptions: no items list in {answer}")
        return items

    # --- the run ---------------------------------------------------------------------------

    def run(self):
        steps = [
            ("setup", self.setup),
            ("subscriptions", self.step_subscriptions),
            ("1 like → push (ko)", self.step_like),
            ("1b follow → push (en)", self.step_language),
            ("2 429 then retry", self.step_retry),
            ("3 own action: no push", self.step_own_action),
            ("4 410 removes it", self.step_gone),
            ("5 kill -9 survival", self.step_kill),
            ("6 exactly once", self.step_exactly_once),
        ]
        stopped = None
        shown = False
        try:
            for name, step in steps:
                if stopped:
                    self.report.skip(self.engine, name, f"(after {stopped} failed)")
                    continue
                started = time.monotonic()
                problems, detail = [], None
                try:
                    detail = step(problems)
                except (Abort, RuntimeError) as error:
                    problems.append(str(error))
                    stopped = name
                    shown = "    | " in str(error)  # the message already holds the log's tail
                except Exception as error:  # an answer of an unexpected shape, or a fault here
                    where = traceback.extract_tb(error.__traceback__)[-1]
                    problems.append(f"{error!r} at {os.path.basename(where.filename)}:{where.lineno} "
                                    f"({where.line})")
                    stopped = name
                self.report.step(self.engine, name, problems, time.monotonic() - started, detail)
                if problems and not stopped and self.server and not self.server.alive():
                    stopped = name
            if stopped and self.server and not shown:
                print(f"     the service's log (kept with --keep: {self.server.log_path}), last lines:\n"
                      f"{self.server.log_tail()}")
        finally:
            if self.server:
                self.server.stop()

    def setup(self, problems):
        environment = dict(os.environ)
        for name in ("BURGERMAP_DATABASE_URL", "BURGERMAP_VAPID_PRIVATE_KEY", "BURGERMAP_SECRET"):
            environment.pop(name, None)
        arguments = [
            "--access-token-ttl", "3600",
            "--write-limit", "review=1000/60", "--write-limit", "comment=1000/60",
            "--write-limit", "reaction=1000/60", "--write-limit", "follow=1000/60",
            "--push-endpoint-host", f"127.0.0.1:{self.receiver.port}", "--push-allow-http",
            "--vapid-subject", SUBJECT,
        ]
        if self.database_url:
            # PostgreSQL: instances share the secret and the VAPID key through the environment.
            self.env_key = ec.generate_private_key(ec.SECP256R1())
            environment["BURGERMAP_SECRET"] = "push-test secret for PostgreSQL, 32 bytes or more"
            environment["BURGERMAP_VAPID_PRIVATE_KEY"] = webpush.private_scalar_b64(self.env_key)
            arguments += ["--database", self.database_url]
        data = os.path.join(self.work, self.engine)
        self.server = Server(self.binary, data, os.path.join(self.work, f"{self.engine}.log"), arguments, environment)
        self.server.start()
        for name, nickname in (("A", "push_alice"), ("B", "push_bob"), ("C", "push_carol"), ("D", "push_dave")):
            answer = self.api("POST", "/v1/auth/register", expect=(201,), body={
                "email": f"{nickname}@example.com", "password": PASSWORD, "nickname": nickname})
            tokens = answer.json()
            self.users[name] = {"id": tokens["user"]["id"], "token": tokens["access_token"]}
        place = self.api("POST", "/v1/places", "A", expect=(200, 201),
                         body={"name": "Push Test Burger", "lat": 37.5665, "lng": 126.9780}).json()
        body, content_type = multipart({"rating": "5", "text": "Crisp edges, soft bun."})
        self.review = self.api("POST", f"/v1/places/{place['id']}/reviews", "A", expect=(201,), raw=body,
                               content_type=content_type).json()["id"]
        self.vapid_key = self.fetch_vapid_key(problems)
        self.receiver.service_key = self.vapid_key
        origin = "generated into the data folder"
        if self.env_key is not None:
            origin = "from BURGERMAP_VAPID_PRIVATE_KEY"
            self.check(problems, self.vapid_key == webpush.public_bytes(self.env_key),
                       "GET /v1/push/vapid-public-key is not the public key of BURGERMAP_VAPID_PRIVATE_KEY")
        return (f"serve on port {self.server.port}, users A–D, review #{self.review}, VAPID key "
                f"{webpush.b64url(self.vapid_key)[:12]}… ({origin})")

    def fetch_vapid_key(self, problems) -> bytes:
        answer = self.api("GET", "/v1/push/vapid-public-key")
        key = (answer.json() or {}).get("key")
        try:
            data = webpush.unb64url(key, "the VAPID public key", padding_ok=True)
            webpush.p256_point(data, "the VAPID public key")
        except webpush.PushError as error:
            raise Abort(f"GET /v1/push/vapid-public-key: {error}") from None
        self.check(problems, key == webpush.b64url(data), f"the VAPID public key {key!r} is padded base64url")
        return data

    def step_subscriptions(self, problems):
        answer = self.api("POST", "/v1/push/subscriptions", expect=None, body={
            "endpoint": self.receiver.url(self.path("nobody")), "keys": webpush.Subscription("", "en", "").keys()})
        self.check(problems, answer.status == 401, f"subscribing without a token: {answer}, not 401")
        for endpoint in ("https://evil.example/x", "http://127.0.0.1:1/", f"ftp://127.0.0.1:{self.receiver.port}/x"):
            answer = self.api("POST", "/v1/push/subscriptions", "A", expect=None, body={
                "endpoint": endpoint, "keys": webpush.Subscription("", "ko", "A").keys()})
            self.check(problems, answer.status == 400 and answer.is_problem(),
                       f"endpoint {endpoint}: {answer.status} {answer.headers.get('Content-Type')}, "
                       "not 400 application/problem+json")
        subscriptions = self.subscriptions
        for name, user, language in (("steady", "A", "ko"), ("a1", "A", "ko"), ("b1", "B", "en"), ("temp", "A", "ko")):
            subscription = subscriptions[name] = webpush.Subscription(self.path(name), language, user)
            created = self.subscribe(user, subscription, language)
            subscription.id = created.get("id")
            self.check(problems, isinstance(subscription.id, int) and not isinstance(subscription.id, bool),
                       f"{name}: id {subscription.id!r} is not an integer")
            self.check(problems, created.get("endpoint") == self.receiver.url(subscription.path),
                       f"{name}: endpoint {created.get('endpoint')!r} is not what was sent")
            self.check(problems, isinstance(created.get("created_at"), str), f"{name}: no created_at string")
        # The same endpoint again, with new keys (a browser's pushsubscriptionchange): the same
        # subscription, updated; the pushes from here on must be encrypted to the new keys.
        renewed = webpush.Subscription(self.path("a1"), "ko", "A")
        again = self.subscribe("A", renewed, "ko", expect=(200, 201))
        renewed.id = subscriptions["a1"].id
        subscriptions["a1"] = renewed
        self.check(problems, again.get("id") == renewed.id,
                   f"subscribing a1 again answered id {again.get('id')!r}, not {renewed.id!r}")
        temp = subscriptions["temp"]
        self.api("DELETE", f"/v1/push/subscriptions/{temp.id}", "A", expect=(204,))
        temp.deleted = True
        answer = self.api("DELETE", f"/v1/push/subscriptions/{subscriptions['steady'].id}", "B", expect=None)
        listed_a = {item.get("id"): item for item in self.listed("A")}
        listed_b = {item.get("id") for item in self.listed("B")}
        wanted_a = {subscriptions["steady"].id, subscriptions["a1"].id}
        self.check(problems, set(listed_a) == wanted_a,
                   f"A's GET /v1/push/subscriptions lists {sorted(listed_a)}, not {sorted(wanted_a)} "
                   f"(temp #{temp.id} deleted; B's DELETE of steady answered {answer.status})")
        self.check(problems, listed_b == {subscriptions["b1"].id},
                   f"B's GET /v1/push/subscriptions lists {sorted(listed_b)}, not [{subscriptions['b1'].id}]")
        for name in ("steady", "a1"):
            item = listed_a.get(subscriptions[name].id) or {}
            self.check(problems, item.get("endpoint") == self.receiver.url(subscriptions[name].path),
                       f"A's list shows {name} with endpoint {item.get('endpoint')!r}")
        return (f"A: steady #{subscriptions['steady'].id}, a1 #{subscriptions['a1'].id} (ko; again → "
                f"same id); B: b1 #{subscriptions['b1'].id} (en); 3 bad endpoints 400; delete 204; "
                f"B's delete of A's → {answer.status}, kept")

    def push(self, records, name, kind, problems, status_ok=True):
        """The one push to `name` among `records`, checked to be a `kind`; answers its record."""
        record = records[0]
        self.problems_of([record], problems)
        self.check(problems, record.type == kind, f"{name}: the push is {record.type!r}, not {kind!r}")
        if status_ok:
            self.check(problems, record.ok, f"{name}: answered {record.status}")
        return record

    def wait_each(self, what, mark, names, kind, count=1):
        """Waits until each of `names` got `count` pushes of `kind` since `mark` (the last of them
        answered 2xx), and answers name → its requests since `mark`."""
        def ready(records):
            found = {name: self.since(name, mark, records) for name in names}
            for requests in found.values():
                of_kind = [record for record in requests if record.type == kind]
                if len(of_kind) < count or not of_kind[-1].ok:
                    return None
            return found
        return self.wait(what, ready)

    def step_like(self, problems):
        mark = self.receiver.mark()
        self.api("PUT", f"/v1/reviews/{self.review}/like", "B")
        found = self.wait_each("B's like: a push to each of A's subscriptions", mark, ["steady", "a1"], "like")
        for name in ("steady", "a1"):
            self.check(problems, len(found[name]) == 1,
                       f"{name} got {len(found[name])} requests: {[r.describe() for r in found[name]]}")
        record = self.push(found["a1"], "a1", "like", problems)
        steady = self.push(found["steady"], "steady", "like", problems)
        self.ids["like by B"] = record.notification_id
        self.check(problems, steady.notification_id == record.notification_id,
                   f"steady got notification #{steady.notification_id}, a1 #{record.notification_id}")
        claims = record.claims or {}
        ttl, urgency = record.headers.get("ttl", ["?"])[0], record.headers.get("urgency", ["?"])[0]
        hours = (claims.get("exp", time.time()) - time.time()) / 3600
        return (f"#{record.notification_id} to steady and a1 (renewed keys); title "
                f"{(record.payload or {}).get('title')!r}; JWT aud {claims.get('aud')}, exp in {hours:.1f} h; "
                f"TTL {ttl}, Urgency {urgency}")

    def step_language(self, problems):
        mark = self.receiver.mark()
        self.api("PUT", f"/v1/users/{self.users['B']['id']}/follow", "A")
        found = self.wait_each("A follows B: a push to B's subscription", mark, ["b1"], "follow")
        record = self.push(found["b1"], "b1", "follow", problems)
        self.check(problems, len(found["b1"]) == 1, f"b1 got {len(found['b1'])} requests")
        self.ids["follow of B by A"] = record.notification_id
        return f"#{record.notification_id} to b1; title {(record.payload or {}).get('title')!r}"

    def step_retry(self, problems):
        a1 = self.path("a1")
        self.receiver.script(a1, (429, {"Retry-After": "1"}))
        mark = self.receiver.mark()
        self.api("POST", f"/v1/reviews/{self.review}/comments", "B", expect=(201,), body={"text": "Looks great!"})
        found = self.wait_each("B's comment: 429, then a retry to a1", mark, ["steady", "a1"], "comment")
        first, *rest = found["a1"]
        self.problems_of(found["a1"] + found["steady"], problems)
        self.check(problems, first.status == 429, f"a1's first request was answered {first.status}, not 429")
        self.check(problems, len(rest) == 1 and rest[0].ok,
                   f"a1 got {[r.describe() for r in found['a1']]}, not one 429 and one retry")
        ids = {record.notification_id for record in found["a1"] + found["steady"]}
        self.check(problems, len(ids) == 1, f"the comment's requests carry notification ids {sorted(map(str, ids))}")
        self.check(problems, all(record.type == "comment" for record in found["a1"]),
                   f"a1's requests are {[record.type for record in found['a1']]}, not comments")
        gap = rest[0].arrived - first.answered if rest else float("nan")
        self.check(problems, not rest or gap >= 0.95, f"the retry came {gap:.2f} s after the 429 with Retry-After: 1")
        self.ids["comment by B"] = first.notification_id
        return (f"#{first.notification_id}: 429 (Retry-After: 1), retried {gap:.2f} s later → "
                f"{rest[-1].status if rest else '-'}")

    def step_own_action(self, problems):
        mark = self.receiver.mark()
        self.api("PUT", f"/v1/reviews/{self.review}/like", "A")  # A's own review: no notification
        self.api("PUT", f"/v1/users/{self.users['A']['id']}/follow", "C")
        found = self.wait_each("C follows A: a push to each of A's subscriptions", mark, ["steady", "a1"], "follow")
        for name in ("steady", "a1"):
            self.problems_of(found[name], problems)
            self.check(problems, [record.type for record in found[name]] == ["follow"],
                       f"{name} got {[r.describe() for r in found[name]]} since A liked A's own review, "
                       "not just C's follow")
        record = found["a1"][-1]
        self.ids["follow of A by C"] = record.notification_id
        return f"A liked A's own review: nothing; C's follow #{record.notification_id} came alone"

    def step_gone(self, problems):
        a1 = self.subscriptions["a1"]
        self.receiver.script(a1.path, 410)
        mark = self.receiver.mark()
        self.api("PUT", f"/v1/reviews/{self.review}/like", "C")
        def answered(records):
            found = {name: self.since(name, mark, records) for name in ("a1", "steady")}
            if found["a1"] and any(r.ok and r.type == "like" for r in found["steady"]):
                return found
            return None

        found = self.wait("C's like: a push to a1 (410) and steady", answered)
        self.problems_of(found["a1"] + found["steady"], problems)
        record = found["a1"][0]
        self.check(problems, record.status == 410 and record.type == "like", f"a1 got {record.describe()}")
        self.check(problems, found["steady"][-1].notification_id == record.notification_id,
                   f"steady got #{found['steady'][-1].notification_id}, a1 #{record.notification_id}")
        self.gone = record.notification_id
        self.ids["like by C"] = record.notification_id
        started = time.monotonic()
        while True:
            listed = {item.get("id") for item in self.listed("A")}
            if a1.id not in listed or time.monotonic() - started > GONE_WAIT:
                break
            time.sleep(0.1)
        took = time.monotonic() - started
        self.check(problems, a1.id not in listed, f"a1 (#{a1.id}) is still listed {GONE_WAIT} s after its 410")
        self.check(problems, self.subscriptions["steady"].id in listed, "steady left the list too")
        a1.deleted = True  # from here on, a push to it is a fault
        return f"#{record.notification_id}: 410 → a1 left the list within {took:.2f} s; steady stays"

    def step_kill(self, problems):
        a2 = self.subscriptions["a2"] = webpush.Subscription(self.path("a2"), "ko", "A")
        self.receiver.hold(a2.path, 503)
        a2.id = self.subscribe("A", a2, "ko").get("id")
        mark = self.receiver.mark()
        self.api("PUT", f"/v1/reviews/{self.review}/like", "D")

        def failing_twice(records):
            steady = [r for r in self.since("steady", mark, records) if r.ok and r.type == "like"]
            failed = self.since("a2", mark, records)
            # Two tries on a2, the second after steady's 201: that one is surely stored as delivered.
            if steady and len(failed) >= 2 and failed[-1].arrived > steady[0].answered:
                return steady, failed
            return None

        steady, failed = self.wait("D's like: steady's 201 and two 503 tries on a2", failing_twice)

        # The service records a failed try (and when to try again) just after its answer; a kill
        # before that leaves the delivery claimed, and a claim is only taken back when its lease
        # runs out, a minute later. Nothing outside can see that record being written, so the
        # kill waits for a2 to be quiet for SETTLE s after its last answer (the next try is 2 s
        # or more away: the backoff doubles from 1 s); a try in between restarts the wait.
        def quiet(records):
            last = self.since("a2", mark, records)[-1]
            return time.monotonic() - last.answered >= SETTLE and self.since("a2", mark, records)

        failed = self.wait("a2 quiet after its last 503", quiet)
        self.problems_of(steady + failed, problems)
        identifier = steady[0].notification_id
        self.check(problems, all(r.status == 503 and r.notification_id == identifier for r in failed),
                   f"a2 got {[r.describe() for r in failed]}, not 503s of #{identifier}")
        self.ids["like by D"] = identifier
        self.server.kill9()
        self.receiver.release(a2.path)
        self.server.start()
        restarted = time.monotonic()
        key = self.fetch_vapid_key(problems)
        self.check(problems, key == self.vapid_key, "the VAPID public key changed across the restart")

        def delivered(records):
            return [r for r in self.since("a2", mark, records) if r.ok]

        arrived = self.wait("D's like on a2 after kill -9 and a restart", delivered, RESTART_WAIT)
        self.problems_of(self.since("a2", mark), problems)
        self.check(problems, arrived[0].notification_id == identifier and arrived[0].type == "like",
                   f"after the restart a2 got {arrived[0].describe()}, not #{identifier}")
        took = arrived[0].arrived - restarted
        lease = " (after the claim's lease: the kill came before the failed try was recorded)" if took > 30 else ""
        return (f"#{identifier}: 503 ×{len(failed)} (and 201 to steady), kill -9, a2 → 201, restart: delivered "
                f"{took:.1f} s after /health answered{lease}")

    def step_exactly_once(self, problems):
        mark = self.receiver.mark()
        self.api("POST", f"/v1/reviews/{self.review}/comments", "C", expect=(201,), body={"text": "Agreed."})
        found = self.wait_each("C's comment (the last push)", mark, ["steady", "a2"], "comment")
        self.ids["comment by C"] = found["steady"][-1].notification_id
        records = [r for r in self.receiver.snapshot() if r.path.startswith(self.path(""))]
        self.problems_of(records, problems)
        ids = self.ids
        expected = {
            "steady": set(ids.values()) - {ids["follow of B by A"]},
            "a1": {ids["like by B"], ids["comment by B"], ids["follow of A by C"], ids["like by C"]},
            "a2": {ids["like by D"], ids["comment by C"]},
            "b1": {ids["follow of B by A"]},
            "temp": set(),
        }
        names = {value: key for key, value in ids.items()}
        self.check(problems, len(names) == len(ids), f"notification ids are not distinct: {ids}")
        for name, wanted in expected.items():
            requests = [r for r in records if r.path == self.path(name)]
            got = {r.notification_id for r in requests}
            extra, missing = got - wanted, wanted - got
            self.check(problems, not extra, f"{name} got pushes it should not have: "
                       f"{[r.describe() for r in requests if r.notification_id in extra]}")
            self.check(problems, not missing, f"{name} never got {[names.get(i, i) for i in missing]}")
            for identifier in wanted & got:
                carried = [r for r in requests if r.notification_id == identifier]
                delivered = [r for r in carried if r.ok]
                if name == "a1" and identifier == self.gone:
                    self.check(problems, len(carried) == 1 and not delivered,
                               f"a1: #{identifier} (answered 410) was sent {len(carried)} times")
                else:
                    self.check(problems, len(delivered) == 1,
                               f"{name}: #{identifier} ({names.get(identifier)}) was answered 2xx "
                               f"{len(delivered)} times ({[r.describe() for r in carried]})")
        strays = [r.describe() for r in self.receiver.snapshot() if r.path.startswith("/push/")
                  and r.path.split("/")[2] == self.engine and r.path not in {s.path for s in self.subscriptions.values()}]
        self.check(problems, not strays, f"requests to paths no subscription had: {strays}")
        checked = len(records)
        return (f"{len(set(ids.values()))} notifications, {checked} requests, each notification 2xx exactly "
                f"once per live subscription; all {checked} passed the VAPID, RFC 8291 and payload checks")
