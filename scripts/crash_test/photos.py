"""The photo checks, run right after every restart (before the load resumes) and at the end:

- a photo URL answers 200 only for an id with a committed row (404 otherwise), for every id
  named by a file anywhere under photos/ (final names and incoming/<uuid>/<id>.jpg), every id the
  load was given and every id ever served;
- every 200 carries `ETag: "<first 16 bytes of SHA-256 of the body, hex>"` and the year-long
  immutable Cache-Control, and an id once served keeps its bytes for the whole run;
- an id seen as an uncommitted file (no row, its process dead) never later gets a row, and no
  image of an id lies in two places with other bytes (ids are never reused). The killed
  process's folder is read between the kill and the next start (`before_start`), since that
  start settles it;
- right after every start, photos/incoming/ holds the running process's folder only (locked,
  only `.lock` in it): a start settles every folder under its final name that no process holds,
  whatever its age. Only a `.making-<uuid>` folder (one whose making a kill cut short) younger
  than 60 s at the start may wait; it is counted, and none is expected.
"""

import fcntl
import hashlib
import os
import re
import sqlite3
import time

NAME = re.compile(r"(\d+)(\.thumb)?\.jpg")
CACHE_CONTROL = "public, max-age=31536000, immutable"
MAKING = ".making-"  # IncomingFolder.makingPrefix: a folder still being made
GRACE = 60.0  # IncomingFolder.makingGrace: a `.making-` folder younger than this at a start waits
SLACK = 1.0  # clock and file-time rounding


def etag_of(body):
    return '"' + hashlib.sha256(body).digest()[:16].hex() + '"'


def digest(path):
    try:
        with open(path, "rb") as file:
            return hashlib.sha256(file.read()).hexdigest()
    except OSError:
        return None


def lock_held(folder):
    """Whether a process holds the folder's `.lock` (tried with a non-blocking flock, released at once)."""
    try:
        descriptor = os.open(os.path.join(folder, ".lock"), os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)  # closing releases a lock taken here
    return False


class Folder:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.making = self.name.startswith(MAKING)
        self.held = lock_held(path)
        self.mtime = os.stat(path).st_mtime
        self.files = sorted(os.listdir(path))


class Scan:
    """photos/incoming/ as a service that started at `started_at` (wall clock) left it."""

    def __init__(self, data_dir, started_at):
        self.incoming = os.path.join(data_dir, "photos", "incoming")
        self.started_at = started_at
        entries = [os.path.join(self.incoming, name) for name in sorted(os.listdir(self.incoming))]
        self.folders = [Folder(path) for path in entries if os.path.isdir(path)]
        self.loose = [os.path.basename(path) for path in entries if not os.path.isdir(path)]
        self.held = [f for f in self.folders if f.held]
        self.dead = [f for f in self.folders if not f.held]
        # The only folders a start may leave unsettled: `.making-` ones younger than GRACE.
        self.young = [f for f in self.dead if f.making and f.mtime >= started_at - GRACE - SLACK]
        self.files = len(self.loose) + sum(len([n for n in f.files if n != ".lock"]) for f in self.folders)


def provenance(model, pid):
    """What the load knows of a photo id (the caller holds the model's lock)."""
    what = model.photo_ids.get(pid)
    if what is None:
        return "no acknowledged answer named it"
    kind, owner = what
    if kind == "review":
        return f"acknowledged as a photo of review {owner} (the model has it {model.reviews[owner]['state']})"
    return f"acknowledged as an avatar of user {owner} (whose last acknowledged avatar is {model.avatars.get(owner)})"


class PhotoLedger:
    """What the run has seen of photos, kept from check to check."""

    def __init__(self):
        self.served = {}  # (id, thumbnail) -> (sha256 hex, ETag, check that first saw it)
        self.named = {}  # id -> check that first saw a file named after it
        self.uncommitted = {}  # id -> (check, sha256 of its file): a file whose row did not exist
        self.folders = set()  # incoming folders at the previous look (a check, or before a start)
        self.restarts = []  # (check, files under incoming/, folders, dead, settled since, awaiting, young .making-)
        self.left = []  # (kill, files left under incoming/, folders, of them photos without a row)
        self.requests = 0
        self.flagged = set()  # (category, (id, thumbnail)) already reported: once each

    def before_start(self, data_dir, when):
        """Reads what the killed (or stopped) process left, while no process runs: the images in
        incoming/ folders whose ids have no committed row are uncommitted (`check` then makes
        sure those ids never get a row), and every id named by a file is probed after the start.
        Answers (files under incoming/, folders, uncommitted images)."""
        photos = os.path.join(data_dir, "photos")
        scan = Scan(data_dir, time.time())
        db = sqlite3.connect(f"file:{os.path.join(data_dir, 'burgermap.sqlite')}?mode=ro", uri=True)
        try:
            rows = {pid for (pid,) in db.execute("SELECT id FROM photos")}
        finally:
            db.close()
        for name in os.listdir(photos):
            if (match := NAME.fullmatch(name)):
                self.named.setdefault(int(match.group(1)), when)
        uncommitted = 0
        for folder in scan.folders:
            for name in folder.files:
                if not (match := NAME.fullmatch(name)):
                    continue
                pid = int(match.group(1))
                self.named.setdefault(pid, when)
                if pid not in rows and not match.group(2):
                    uncommitted += 1
                    self.uncommitted.setdefault(pid, (when, digest(os.path.join(folder.path, name))))
        self.folders = {f.name for f in scan.folders}
        self.left.append((when, scan.files, len(scan.folders), uncommitted))
        return self.left[-1][1:]

    def check(self, call, port, data_dir, scan, model, report, when):
        """Runs the photo checks on an idle service; adds violations to `report`."""
        def bad(category, message, key=None):
            """Reports once per (category, key) over the whole run when `key` is given."""
            if key is not None:
                if (category, key) in self.flagged:
                    return
                self.flagged.add((category, key))
            if key is not None and isinstance(key[0], int):
                with model.lock:
                    message += f"; {provenance(model, key[0])}"
            report.setdefault(category, []).append(f"[{when}] {message}")

        photos = os.path.join(data_dir, "photos")
        db = sqlite3.connect(f"file:{os.path.join(data_dir, 'burgermap.sqlite')}?mode=ro", uri=True)
        try:
            rows = {pid for (pid,) in db.execute("SELECT id FROM photos")}
        finally:
            db.close()

        # Where each image of each id lies: its final name and/or folders of incoming/.
        places = {}
        for name in os.listdir(photos):
            if (match := NAME.fullmatch(name)):
                places.setdefault((int(match.group(1)), bool(match.group(2))), []).append(("final", os.path.join(photos, name)))
        for folder in scan.folders:
            for name in folder.files:
                if (match := NAME.fullmatch(name)):
                    key = (int(match.group(1)), bool(match.group(2)))
                    places.setdefault(key, []).append((folder, os.path.join(folder.path, name)))
        for (pid, thumb), where in sorted(places.items(), key=lambda item: item[0]):
            self.named.setdefault(pid, when)
            digests = {digest(path) for _, path in where}
            if len(where) > 1:
                names = ", ".join("final name" if place == "final" else f"incoming/{place.name}" for place, _ in where)
                bad("reused ids", f"photo {pid}{' thumbnail' if thumb else ''} lies in {names} "
                                  f"({'other' if len(digests) > 1 else 'the same'} bytes)", (pid, thumb))
            if pid not in rows:
                for place, path in where:
                    if place != "final" and not place.held and not thumb and pid not in self.uncommitted:
                        self.uncommitted[pid] = (when, digest(path))

        with model.lock:
            given = set(model.photo_ids)
        ids = set(self.named) | rows | given | {pid for pid, _ in self.served}
        awaiting = 0
        for pid in sorted(ids):
            for thumb in (False, True):
                url = f"/v1/photos/{pid}/thumbnail.jpg" if thumb else f"/v1/photos/{pid}.jpg"
                final = os.path.join(photos, f"{pid}.thumb.jpg" if thumb else f"{pid}.jpg")
                answer = call(port, "GET", url)
                self.requests += 1
                if answer.status == 404:
                    if pid in rows and os.path.exists(final):
                        bad("photo serving", f"GET {url}: 404, yet its row and file are there", (pid, thumb))
                    elif pid in rows and not thumb:
                        awaiting += 1
                    continue
                if answer.status != 200:
                    bad("photo serving", f"GET {url}: {answer.status} {answer.body[:200]!r}", (pid, thumb))
                    continue
                if pid not in rows:
                    bad("served without row", f"GET {url}: 200 ({len(answer.body)} bytes), no photo row {pid}",
                        (pid, thumb))
                sha = hashlib.sha256(answer.body).hexdigest()
                etag, cache = answer.headers.get("ETag"), answer.headers.get("Cache-Control")
                if etag != etag_of(answer.body):
                    bad("etags", f"GET {url}: ETag {etag}, its body's is {etag_of(answer.body)}", (pid, thumb))
                if cache != CACHE_CONTROL:
                    bad("etags", f"GET {url}: Cache-Control {cache!r}", (pid, "cache"))
                if digest(final) not in (None, sha):
                    bad("photo serving", f"GET {url}: the body is not the file {os.path.basename(final)}", (pid, "file"))
                known = self.served.get((pid, thumb))
                if known is None:
                    self.served[(pid, thumb)] = (sha, etag, when)
                elif known[0] != sha or known[1] != etag:
                    bad("content changed", f"GET {url}: sha256 {sha[:16]}…, ETag {etag}; "
                                           f"[{known[2]}] it was {known[0][:16]}…, ETag {known[1]}", (pid, thumb))

        for pid in sorted(rows & set(self.uncommitted)):
            seen, sha = self.uncommitted[pid]
            if seen != when:
                served = self.served.get((pid, False))
                same = "unknown bytes" if served is None else ("the same bytes" if served[0] == sha else "other bytes")
                bad("reused ids", f"photo {pid} was a file with no row in a dead process's incoming/ folder [{seen}], "
                                  f"now it has a committed row ({same})", (pid, "row"))

        self.check_incoming(scan, bad)
        names = {f.name for f in scan.folders}
        self.restarts.append((when, scan.files, len(scan.folders), len(scan.dead),
                              len(self.folders - names), awaiting, len(scan.young)))
        self.folders = names
        return self.restarts[-1]

    def check_incoming(self, scan, bad):
        """Right after a start: the running process's folder, holding `.lock` only, and no other
        folder but a `.making-` one younger than GRACE (counted; none is expected)."""
        if len(scan.held) != 1:
            bad("unsettled incoming", f"{len(scan.held)} folders of incoming/ are locked by a running process, expected 1")
        for folder in scan.held:
            if folder.making or folder.files != [".lock"]:
                bad("unsettled incoming", f"the running process's incoming/{folder.name} holds {folder.files} at start")
        for folder in scan.dead:
            if folder in scan.young:
                continue
            age = scan.started_at - folder.mtime
            bad("unsettled incoming", f"incoming/{folder.name}, no running owner, {age:.0f} s old at the start, "
                                      f"was not settled: {folder.files}")

    def summary(self):
        """Lines for the run's summary."""
        starts = [r for r in self.restarts if not r[0].startswith("self-test")]
        files = [r[1] for r in starts]
        left = [r[1] for r in self.left]
        return [
            f"photo ids: {len(self.named)} seen in file names, {len({p for p, _ in self.served})} served with 200 "
            f"({len(self.served)} images recorded by hash and ETag), {len(self.uncommitted)} seen as files with no row "
            f"in a dead process's folder; {self.requests} photo requests",
            f"files left under photos/incoming/ by each kill (and the clean stop), read before the next start: "
            f"{left} (most {max(left, default=0)}); of them images with no row: {[r[3] for r in self.left]}",
            f"files under photos/incoming/ at each start: {files} (most {max(files, default=0)}); "
            f"folders settled: {sum(r[4] for r in starts)}; committed photos awaiting settling at a start: "
            f"{[r[5] for r in starts]}; young .making- folders left by a start: {sum(r[6] for r in starts)}",
        ]
