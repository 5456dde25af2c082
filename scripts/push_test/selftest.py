"""`scripts/push-test --self-test`: the receiver against requests made here, so that a run's PASS
means something. Bodies are encrypted by http_ece's own `encrypt` (and, for padding and
delimiters, by a few lines of RFC 8291 written here), JWTs signed with `cryptography`; every
request goes over HTTP to the real receiver. Valid pushes must pass every check with the right
payload; each planted fault must be named; the scripted answers (429 with Retry-After, a held
503, 410) must reach the client."""

import http.client
import json
import os
import struct
import time

import http_ece
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from . import webpush
from .flow import SUBJECT
from .receiver import Receiver

KO = {"notification_id": 7, "type": "like", "title": "새 좋아요", "body": "push_bob님이 리뷰를 좋아합니다.",
      "url": "/v1/reviews/3"}
EN = {"notification_id": 8, "type": "follow", "title": "New follower", "body": "push_alice follows you.",
      "url": "/v1/users/1"}


def encode(value) -> str:
    return webpush.b64url(json.dumps(value, separators=(",", ":")).encode())


def make_jwt(key, claims, header=None, der=False, pad=False) -> str:
    """An ES256 JWT signed with `cryptography` (r‖s, or DER with `der`)."""
    signing_input = f"{encode(header or {'typ': 'JWT', 'alg': 'ES256'})}.{encode(claims)}"
    signature = key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
    if not der:
        r, s = decode_dss_signature(signature)
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    text = webpush.b64url(signature)
    return f"{signing_input}.{text + '=' * (-len(text) % 4) if pad else text}"


def encrypt_http_ece(plaintext: bytes, subscription, rs=4096, auth=None, keyid=None) -> bytes:
    """aes128gcm by http_ece, as a sending library does it: a fresh sender key per message."""
    sender = ec.generate_private_key(ec.SECP256R1())
    return http_ece.encrypt(plaintext, private_key=sender, dh=subscription.public,
                            auth_secret=auth or subscription.auth, keyid=keyid, version="aes128gcm", rs=rs)


def encrypt_by_hand(plaintext: bytes, subscription, padding=0, delimiter=b"\x02", rs=4096) -> bytes:
    """RFC 8291 §3.4 by hand, for what http_ece's encrypt cannot make (padding, a wrong delimiter)."""
    sender = ec.generate_private_key(ec.SECP256R1())
    sender_public = webpush.public_bytes(sender)
    salt = os.urandom(16)
    shared = sender.exchange(ec.ECDH(), subscription.private_key.public_key())
    ikm = webpush._hkdf(subscription.auth, shared, b"WebPush: info\x00" + subscription.public + sender_public, 32)
    cek = webpush._hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = webpush._hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    record = AESGCM(cek).encrypt(nonce, plaintext + delimiter + b"\x00" * padding, None)
    return salt + struct.pack("!I", rs) + bytes([65]) + sender_public + record


def run() -> int:
    passed = failed = 0

    def result(ok, name, detail=""):
        nonlocal passed, failed
        ok = bool(ok)
        passed, failed = passed + ok, failed + (not ok)
        print(f"{'PASS' if ok else 'FAIL'} self-test  {name:<52} {detail}", flush=True)

    with Receiver(SUBJECT) as receiver:
        vapid = ec.generate_private_key(ec.SECP256R1())
        other = ec.generate_private_key(ec.SECP256R1())
        receiver.service_key = webpush.public_bytes(vapid)
        ko = webpush.Subscription("/push/self/ko", "ko", "A")
        en = webpush.Subscription("/push/self/en", "en", "B")
        stranger = webpush.Subscription("/push/self/stranger", "ko", "C")
        gone = webpush.Subscription("/push/self/gone", "ko", "A")
        gone.deleted = True
        for subscription in (ko, en, gone):
            receiver.add(subscription)
        claims = {"aud": receiver.origin, "exp": int(time.time()) + 12 * 3600, "sub": SUBJECT}

        def headers(token=None, key=vapid, scheme="vapid", **changes):
            sent = {"TTL": "2419200", "Urgency": "normal", "Content-Encoding": "aes128gcm",
                    "Content-Type": "application/octet-stream",
                    "Authorization": f"{scheme} t={token or make_jwt(vapid, claims)}, "
                                     f"k={webpush.b64url(webpush.public_bytes(key))}"}
            for name, value in changes.items():
                name = name.replace("_", "-")
                if value is None:
                    sent.pop(name, None)
                else:
                    sent[name] = value
            return sent

        def send(path, body, sent, method="POST", chunked=False):
            """Sends one request; answers (status, response headers, its Record)."""
            mark = receiver.mark()
            connection = http.client.HTTPConnection("127.0.0.1", receiver.port, timeout=10)
            try:
                if chunked:
                    connection.putrequest(method, path)
                    for name, value in sent.items():
                        connection.putheader(name, value)
                    connection.putheader("Transfer-Encoding", "chunked")
                    connection.endheaders()
                    for start in range(0, len(body), 50):
                        piece = body[start:start + 50]
                        connection.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    connection.send(b"0\r\n\r\n")
                else:
                    connection.request(method, path, body=body, headers=sent)
                response = connection.getresponse()
                response.read()
                status, answer_headers = response.status, response.headers
            finally:
                connection.close()
            records = receiver.wait_until(lambda rs: [r for r in rs if r.sequence > mark], 5)
            return status, answer_headers, (records[0] if records else None)

        def valid(name, path, subscription, payload, body=None, chunked=False):
            body = body or encrypt_http_ece(json.dumps(payload, ensure_ascii=False).encode(), subscription)
            status, _, record = send(path, body, headers(), chunked=chunked)
            ok = (record is not None and not record.problems and record.payload == payload and status == 201
                  and record.claims == claims)
            result(ok, name, f"→ {status}" if ok else f"problems: {record.problems if record else 'no record'}")

        def fault(name, expected, path=ko.path, body=None, sent=None, payload=KO, status=None, method="POST"):
            body = body if body is not None else encrypt_http_ece(json.dumps(payload, ensure_ascii=False).encode(), ko)
            answered, _, record = send(path, body, sent or headers(), method=method)
            named = record is not None and any(expected in problem for problem in record.problems)
            ok = named and (status is None or answered == status)
            result(ok, name, f"caught: {next(p for p in record.problems if expected in p)[:90]}" if named else
                   f"wanted a problem with {expected!r}, got {record.problems if record else 'no record'} ({answered})")

        # What must pass.
        valid("http_ece ciphertext, ES256 JWT: decrypts, verifies", ko.path, ko, KO)
        valid("English subscriber, English title", en.path, en, EN)
        valid("chunked request body", ko.path, ko, KO, chunked=True)
        valid("padding after the 0x02 delimiter", ko.path, ko, KO,
              body=encrypt_by_hand(json.dumps(KO, ensure_ascii=False).encode(), ko, padding=100))

        # The scripted answers reach the client.
        body = encrypt_http_ece(json.dumps(KO).encode(), ko)
        receiver.script(ko.path, (429, {"Retry-After": "1"}), 410)
        first = send(ko.path, body, headers())
        second = send(ko.path, body, headers())
        third = send(ko.path, body, headers())
        result(first[0] == 429 and first[1].get("Retry-After") == "1" and second[0] == 410 and third[0] == 201
               and third[1].get("Location"), "scripted 429 (Retry-After: 1), 410, then 201",
               f"{first[0]} {second[0]} {third[0]}")
        receiver.hold(ko.path, 503)
        held = [send(ko.path, body, headers())[0] for _ in range(2)]
        receiver.release(ko.path)
        after = send(ko.path, body, headers())[0]
        result(held == [503, 503] and after == 201, "held 503 until released", f"{held} then {after}")

        # Encryption faults.
        plain = json.dumps(KO, ensure_ascii=False).encode()
        fault("another auth secret", "authentication failed", body=encrypt_http_ece(plain, ko, auth=os.urandom(16)))
        fault("encrypted to another subscription", "authentication failed", body=encrypt_http_ece(plain, stranger))
        tampered = bytearray(encrypt_http_ece(plain, ko))
        tampered[-20] ^= 1
        fault("one ciphertext bit flipped", "authentication failed", body=bytes(tampered))
        fault("keyid not the 65-octet sender key", "keyid is 3 octets",
              body=encrypt_http_ece(plain, ko, keyid="abc"))
        fault("two records", "one record", body=encrypt_http_ece(plain, ko, rs=60))
        exact = encrypt_http_ece(plain, ko)
        exact = exact[:16] + struct.pack("!I", len(exact) - 86) + exact[20:]
        fault("rs equal to the record's size", "rs is", body=exact)
        fault("a body over 4096 octets", "4096", body=encrypt_http_ece(plain + b" " * 4100, ko, rs=8192))
        fault("delimiter 0x01 in the only record", "delimiter is 0x01",
              body=encrypt_by_hand(plain, ko, delimiter=b"\x01"))
        fault("a short body", "shorter than the 21-octet", body=b"\x00" * 10)

        # VAPID faults.
        fault("JWT signed by another key", "does not verify", sent=headers(token=make_jwt(other, claims)))
        fault("k not the published key", "not the key GET",
              sent=headers(token=make_jwt(other, claims), key=other))
        fault("DER signature", "64 octets", sent=headers(token=make_jwt(vapid, claims, der=True)))
        fault("alg HS256", "not ES256",
              sent=headers(token=make_jwt(vapid, claims, header={"typ": "JWT", "alg": "HS256"})))
        fault("padded JWT part", "unpadded base64url", sent=headers(token=make_jwt(vapid, claims, pad=True)))
        for name, change, expected in (
                ("aud https", {"aud": receiver.origin.replace("http:", "https:")}, "aud is"),
                ("aud with a path", {"aud": receiver.origin + "/"}, "aud is"),
                ("exp 25 h away", {"exp": int(time.time()) + 25 * 3600}, "at most 24 hours"),
                ("exp in the past", {"exp": int(time.time()) - 10}, "in the past"),
                ("exp a string", {"exp": str(int(time.time()) + 600)}, "not an integer"),
                ("sub another contact", {"sub": "mailto:someone@example.org"}, "sub is")):
            fault(name, expected, sent=headers(token=make_jwt(vapid, {**claims, **change})))
        fault("scheme WebPush", "not vapid", sent=headers(scheme="WebPush"))
        fault("no Authorization", "no Authorization", sent=headers(Authorization=None))

        # Header faults.
        fault("no TTL", "no TTL", sent=headers(TTL=None))
        fault("TTL not delta-seconds", "delta-seconds", sent=headers(TTL="1.5"))
        fault("Urgency urgent", "Urgency is", sent=headers(Urgency="urgent"))
        fault("Content-Encoding aesgcm", "Content-Encoding is", sent=headers(Content_Encoding="aesgcm"))
        fault("Content-Type text/plain", "Content-Type is", sent=headers(Content_Type="text/plain"))

        # Payload faults.
        fault("notification_id a string", "notification_id", payload={**KO, "notification_id": "7"})
        fault("notification_id true", "notification_id", payload={**KO, "notification_id": True})
        fault("type poke", "type is", payload={**KO, "type": "poke"})
        fault("no url", "url is", payload={key: value for key, value in KO.items() if key != "url"})
        fault("English title for ko", "no Hangul", payload={**KO, "title": "New like"})
        fault("not JSON", "not UTF-8 JSON", body=encrypt_http_ece(b"\xff{", ko))
        en_body = encrypt_http_ece(json.dumps(KO, ensure_ascii=False).encode(), en)
        answered, _, record = send(en.path, en_body, headers())
        result(record is not None and any("not English" in p for p in record.problems), "Korean title for en",
               f"{record.problems if record else 'no record'}")

        # Requests that no live subscription should get.
        fault("a path no subscription has", "which no subscription has", path="/push/self/nobody", status=404)
        fault("a deleted subscription", "was deleted", path=gone.path,
              body=encrypt_http_ece(plain, gone))
        fault("GET instead of POST", "not POST", method="GET", body=b"")

    print(f"push-test --self-test: {passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0
