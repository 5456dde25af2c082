"""The photo store across two instances (scripts/multi-instance, step 12): photos in a real
SeaweedFS bucket, one PostgreSQL database.

a. in each URL mode (`proxy`, `redirect`, `public:`), a photo uploaded through A is served by
   B: the same bytes and ETag streamed, a `302` to a presigned URL the store answers, or an
   absolute URL in the review's JSON that the (anonymously readable) bucket answers;
b. A killed with `kill -9` while 12 uploads run through it: afterwards B's sweeper (grace 10 s)
   leaves exactly the objects of the photo rows (no orphan), and every acknowledged review's
   photos are served (none missing);
c. a deleted review's objects are gone within seconds (the deletion queue);
d. the S3 gateway stopped: uploads are `503` with `Retry-After`, `/health` stays `200` and says
   `photo_store: unreachable`, other routes answer; started again: uploads work again by
   themselves."""

import concurrent.futures
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

PG_BIN = "/usr/lib/postgresql/15/bin"


def check(condition: bool, message: str):
    if not condition:
        sys.exit(f"FAILED: {message}")
    print(f"ok: {message}")


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *arguments):
        return None


def run(start, stop, seaweed, url: str, tools):
    """`start(name, extra_options)` starts an instance and waits for its health; `stop(instance)`;
    `tools` gives register, multipart and make_jpeg of scripts/multi-instance."""
    jpeg = tools.make_jpeg()

    def post_review(instance, token, place_id, photos=1):
        body, content_type = tools.multipart(
            {"rating": "5", "text": "In the bucket."}, [("photo", f"p{i}.jpg", jpeg) for i in range(photos)])
        return instance.call("POST", f"/v1/places/{place_id}/reviews", raw=body, content_type=content_type,
                             token=token)

    def new_place(instance, token, name):
        status, _, place = instance.call("POST", "/v1/places", {"name": name, "lat": 37.6, "lng": 127.1},
                                         token=token)
        check(status == 201, f"place {name} added")
        return place["id"]

    # a. Each URL mode, uploaded through A, served by B.
    for mode in ["proxy", "redirect", f"public:{seaweed.endpoint}/{seaweed.bucket}/"]:
        prefix = "modes-" + mode.split(":")[0]
        options = seaweed.options(prefix) + ["--photo-urls", mode]
        a, b = start("photo-a", options), start("photo-b", options)
        user = tools.register(a, f"mode{prefix.split('-')[1]}")
        token = user["access_token"]
        status, _, review = post_review(a, token, new_place(a, token, f"Bucket {mode[:6]}"))
        check(status == 201, f"{mode}: a photo uploaded through A")
        photo = review["photos"][0]
        if mode == "proxy":
            status_a, answer_a, bytes_a = a.call("GET", photo["url"])
            status_b, answer_b, bytes_b = b.call("GET", photo["url"])
            check(status_b == 200 and bytes_b == bytes_a and bytes_b[:2] == b"\xff\xd8",
                  "proxy: B streams the bytes A streams")
            etag = answer_b.getheader("ETag")
            check(etag == answer_a.getheader("ETag") == '"' + hashlib.sha256(bytes_b).hexdigest()[:32] + '"',
                  "proxy: the same ETag on both, the first 128 bits of the bytes' SHA-256")
            status, _, _ = b.call("GET", photo["url"], headers={"If-None-Match": etag})
            check(status == 304, "proxy: 304 for the tag on B")
        elif mode == "redirect":
            status, answer, _ = b.call("GET", photo["thumbnail_url"])
            location = answer.getheader("Location") or ""
            check(status == 302 and location.startswith(seaweed.endpoint) and "X-Amz-Signature=" in location,
                  "redirect: B answers 302 to a presigned URL of the store")
            status, data = fetch(location)
            check(status == 200 and data[:2] == b"\xff\xd8", "redirect: the store serves the presigned URL")
        else:
            base = mode[len("public:"):]
            check(photo["url"].startswith(base + prefix + "/") and photo["url"].endswith(".jpg"),
                  f"public: the review's photo URL is absolute on the bucket ({photo['url']})")
            status, data = fetch(photo["url"])
            check(status == 200 and data[:2] == b"\xff\xd8", "public: the bucket serves it to anyone")
            status, answer, _ = b.call("GET", f"/v1/photos/{photo['id']}.jpg")
            check(status == 302 and answer.getheader("Location") == photo["url"],
                  "public: B redirects /v1/photos/… to the same URL")
        stop(a)
        stop(b)

    # b. kill -9 during uploads, then the sweeper.
    prefix = "crash"
    options = seaweed.options(prefix) + ["--photo-sweep-grace", "10"]
    a, b = start("photo-a", options), start("photo-b", options)
    user = tools.register(b, "crashy")
    token = user["access_token"]
    place_id = new_place(b, token, "Crash Lab")
    acknowledged = []

    def upload(index):
        try:
            status, _, review = post_review(a, token, place_id, photos=1 + index % 3)
            return review if status == 201 else None
        except OSError:
            return None

    # Six at a time; A is killed once four are acknowledged, with others on their way.
    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        futures = [pool.submit(upload, index) for index in range(12)]
        for future in concurrent.futures.as_completed(futures, timeout=120):
            review = future.result()
            if review:
                acknowledged.append(review)
            if len(acknowledged) >= 4 and a.process.poll() is None:
                a.process.send_signal(signal.SIGKILL)
    a.process.wait()
    check(4 <= len(acknowledged) < 12, f"A killed during 12 uploads, {len(acknowledged)} acknowledged before")

    def row_objects() -> set[str]:
        keys = subprocess.run(
            [f"{PG_BIN}/psql", url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c",
             "SELECT COALESCE(object_key, id::text) FROM photos"], capture_output=True, text=True,
            check=True).stdout.split()
        return {f"{key}{suffix}" for key in keys for suffix in (".jpg", ".thumb.jpg")}

    # The rows of the other prefixes' photos are in the table too: only this prefix's objects
    # are compared with them.
    left = seaweed.object_names(prefix) - row_objects()
    print(f"right after the kill: {len(left)} objects under the prefix without a row")
    deadline = time.monotonic() + 40
    while True:
        stored = seaweed.object_names(prefix)
        orphans = stored - row_objects()
        if not orphans or time.monotonic() > deadline:
            break
        time.sleep(1)
    check(not orphans, f"after the sweep no object under the prefix lacks a row ({len(stored)} objects)")
    for review in acknowledged:
        for photo in review["photos"]:
            status, _, data = b.call("GET", photo["url"])
            check(status == 200 and data[:2] == b"\xff\xd8", f"acknowledged photo {photo['id']} is served by B")

    # c. A deleted review's objects go within seconds.
    if acknowledged:
        review = acknowledged[0]
        names = seaweed.object_names(prefix)
        status, _, _ = b.call("DELETE", f"/v1/reviews/{review['id']}", token=token)
        check(status == 204, "a review with photos deleted through B")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and len(seaweed.object_names(prefix)) > len(names) - 2 * len(review["photos"]):
            time.sleep(0.5)
        check(len(seaweed.object_names(prefix)) == len(names) - 2 * len(review["photos"]),
              "its objects are removed by the deletion queue within 15 s")

    # d. The S3 gateway stopped, then started again.
    seaweed.pause()
    try:
        status, answer, body = post_review(b, token, place_id)
        check(status == 503 and answer.getheader("Retry-After") is not None,
              f"S3 away: an upload is 503 with Retry-After ({status})")
        status, _, health = b.call("GET", "/health")
        check(status == 200 and health.get("photo_store") == "unreachable",
              f"S3 away: /health is 200 and names the photo store ({health})")
        check(b.call("GET", f"/v1/places/{place_id}")[0] == 200, "S3 away: other routes answer")
    finally:
        seaweed.resume()
    deadline = time.monotonic() + 30
    status = None
    while time.monotonic() < deadline:
        status = b.call("GET", "/health")[2].get("photo_store")
        if status == "ok":
            break
        time.sleep(0.5)
    check(status == "ok", "S3 back: /health says ok again by itself")
    status, _, _ = post_review(b, token, place_id)
    check(status == 201, "S3 back: uploads work again")
    stop(b)
