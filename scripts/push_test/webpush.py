"""What a browser and its push service check of one push request, from the RFCs:

- RFC 8030 (Web Push): the `TTL` (delta-seconds), `Urgency` (very-low, low, normal, high) and
  optional `Topic` (at most 32 base64url characters) headers;
- RFC 8291 (message encryption) over RFC 8188 (aes128gcm): one `Content-Encoding: aes128gcm`, a
  header of salt (16), rs (4), idlen (1) and keyid = the sender's 65-octet uncompressed P-256
  key, one record (rs greater than the record), at most 4096 octets in all, a last-record
  delimiter 0x02 followed by zeros only. The body is decrypted twice: by this module's own
  HKDF/ECDH/AES-GCM code and by `http_ece.decrypt`, and both must agree;
- RFC 8292 (VAPID): `Authorization: vapid t=<JWT>, k=<key>`, the JWT compact, unpadded base64url,
  `alg` ES256, its signature (64 octets r‖s) valid under `k`, `aud` the endpoint's origin, `exp`
  an integer in the future and at most 24 hours away, `sub` the configured contact; `k` the
  service's published key.

Then the payload: the JSON object the service promises (`notification_id`, `type`, `title`,
`body`, `url`), its title in the subscriber's language."""

import base64
import json
import os
import re
import struct
import time

import http_ece
from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

MAX_BODY = 4096  # RFC 8030 §7.2: what every push service must accept; RFC 8291 §4 sizes for it
URGENCIES = {"very-low", "low", "normal", "high"}  # RFC 8030 §5.3
TYPES = {"like", "comment", "follow"}  # the notification kinds this run makes
UNPADDED_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")


class PushError(Exception):
    """One thing wrong with a push request, said so that the log shows which rule it broke."""


def b64url(data: bytes) -> str:
    """Unpadded base64url (RFC 7515 §2), as browsers give `p256dh` and `auth`."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text, what: str, padding_ok: bool = False) -> bytes:
    """Decodes base64url; without `padding_ok` only the unpadded form RFC 7515 uses (JWS parts,
    VAPID's `k`)."""
    if not isinstance(text, str):
        raise PushError(f"{what} is not a string: {text!r:.80}")
    body = text.rstrip("=") if padding_ok else text
    if not UNPADDED_B64URL.match(body) or len(body) % 4 == 1:
        raise PushError(f"{what} is not unpadded base64url: {text!r:.80}")
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


def public_bytes(key) -> bytes:
    """The 65-octet uncompressed point of a P-256 public key (or of a private key's public key)."""
    if isinstance(key, ec.EllipticCurvePrivateKey):
        key = key.public_key()
    return key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def p256_point(data: bytes, what: str):
    """A P-256 public key from its uncompressed point; PushError unless it is one (on the curve)."""
    if len(data) != 65 or data[:1] != b"\x04":
        start = data[:1].hex() or "nothing"
        raise PushError(f"{what} is {len(data)} octets starting 0x{start}; an uncompressed P-256 point is 65 "
                        "octets starting 0x04")
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), data)
    except ValueError as error:
        raise PushError(f"{what} is not a point on P-256 ({error})") from None


def private_scalar_b64(key: ec.EllipticCurvePrivateKey) -> str:
    """A private key as BURGERMAP_VAPID_PRIVATE_KEY takes it: base64url of the 32-octet scalar."""
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


class Subscription:
    """One browser subscription: the receiver's path, the user agent's ECDH key pair and auth
    secret (RFC 8291 §2), the language its user subscribed with, and what pushes it expects."""

    def __init__(self, path: str, language: str, owner: str):
        self.path, self.language, self.owner = path, language, owner
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.public = public_bytes(self.private_key)
        self.auth = os.urandom(16)
        self.id = None  # the service's id, once subscribed
        self.deleted = False  # deleted by its user: no push may arrive any more

    def keys(self) -> dict:
        return {"p256dh": b64url(self.public), "auth": b64url(self.auth)}


def _hkdf(salt: bytes, secret: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(secret)


def split_aes128gcm(body: bytes):
    """RFC 8188 §2.1 header: (salt, rs, keyid, records)."""
    if len(body) < 21:
        raise PushError(f"the body is {len(body)} octets, shorter than the 21-octet aes128gcm header")
    idlen = body[20]
    if len(body) < 21 + idlen:
        raise PushError(f"the body ends inside its keyid ({idlen} octets declared)")
    return body[:16], struct.unpack("!I", body[16:20])[0], body[21:21 + idlen], body[21 + idlen:]


def decrypt_rfc8291(body: bytes, subscription: Subscription) -> bytes:
    """This module's own decryption (RFC 8291 §3.3, §3.4 and §4 over RFC 8188), with the rules
    http_ece does not check: one record, rs above its size, the sender's key as keyid."""
    if len(body) > MAX_BODY:
        raise PushError(f"the body is {len(body)} octets; push services need accept only {MAX_BODY} "
                        "(RFC 8030 §7.2, RFC 8291 §4)")
    salt, rs, keyid, record = split_aes128gcm(body)
    if len(keyid) != 65:
        raise PushError(f"keyid is {len(keyid)} octets; RFC 8291 §4 wants the sender's 65-octet "
                        "uncompressed P-256 key there")
    sender = p256_point(keyid, "the keyid (the sender's ECDH key)")
    if rs < 18:
        raise PushError(f"rs is {rs}; RFC 8188 §2.1 wants at least 18")
    if len(record) < 17:
        raise PushError(f"the record is {len(record)} octets, shorter than a tag and a delimiter")
    if rs <= len(record):
        raise PushError(f"rs is {rs} and the record {len(record)} octets: RFC 8291 §4 wants one record "
                        "and rs greater than plaintext, delimiter, padding and tag together")
    shared = subscription.private_key.exchange(ec.ECDH(), sender)
    ikm = _hkdf(subscription.auth, shared, b"WebPush: info\x00" + subscription.public + keyid, 32)
    cek = _hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = _hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    try:
        padded = AESGCM(cek).decrypt(nonce, record, None)
    except InvalidTag:
        raise PushError("AES-GCM authentication failed: not encrypted to this subscription's p256dh "
                        "and auth (RFC 8291 §3.3/§3.4)") from None
    unpadded = padded.rstrip(b"\x00")
    if not unpadded:
        raise PushError("the record's plaintext is all zeros (no delimiter)")
    if unpadded[-1] != 2:
        raise PushError(f"the record's delimiter is 0x{unpadded[-1]:02x}; the last (only) record's is "
                        "0x02 (RFC 8188 §2)")
    return unpadded[:-1]


def decrypt_http_ece(body: bytes, subscription: Subscription) -> bytes:
    """The same body through http_ece, as the brief names it."""
    try:
        return http_ece.decrypt(body, private_key=subscription.private_key, auth_secret=subscription.auth,
                                version="aes128gcm")
    except Exception as error:  # http_ece.ECEException, struct errors on a short body, ...
        raise PushError(f"http_ece.decrypt failed: {getattr(error, 'message', None) or error!r}") from None


def parse_authorization(value) -> tuple[str, str]:
    """RFC 8292 §3: `vapid t=<JWT>, k=<key>` → (t, k)."""
    if not value:
        raise PushError("no Authorization header (RFC 8292 §3: vapid t=…, k=…)")
    scheme, _, rest = value.strip().partition(" ")
    if scheme.lower() != "vapid":
        raise PushError(f"Authorization scheme is {scheme!r:.40}, not vapid (RFC 8292 §3)")
    parameters = {}
    for part in rest.split(","):
        name, equals, content = part.strip().partition("=")
        if not equals:
            raise PushError(f"Authorization parameter {part.strip()!r:.60} has no '='")
        if name.lower() in parameters:
            raise PushError(f"Authorization has {name} twice")
        parameters[name.lower()] = content.strip().strip('"')
    missing = {"t", "k"} - parameters.keys()
    if missing:
        raise PushError(f"Authorization lacks {', '.join(sorted(missing))} (RFC 8292 §3: vapid t=…, k=…)")
    return parameters["t"], parameters["k"]


def verify_vapid(value, service_key: bytes, audience: str, subject: str, now: float) -> dict:
    """Checks an Authorization header (RFC 8292): answers the JWT's claims, or raises PushError."""
    token, key_text = parse_authorization(value)
    key = unb64url(key_text, "k")
    public_key = p256_point(key, "k")
    if service_key is not None and key != service_key:
        raise PushError(f"k is {key_text[:16]}…, not the key GET /v1/push/vapid-public-key answers "
                        f"({b64url(service_key)[:16]}…)")
    parts = token.split(".")
    if len(parts) != 3:
        raise PushError(f"the JWT has {len(parts)} parts, not 3 (JWS compact serialization)")
    try:
        header = json.loads(unb64url(parts[0], "the JWT header"))
        claims = json.loads(unb64url(parts[1], "the JWT claims"))
    except (ValueError, UnicodeDecodeError) as error:
        raise PushError(f"the JWT header or claims are not JSON ({error})") from None
    if not isinstance(header, dict) or header.get("alg") != "ES256":
        raise PushError(f"the JWT's alg is {header.get('alg') if isinstance(header, dict) else header!r}, "
                        "not ES256 (RFC 8292 §2)")
    if "typ" in header and str(header["typ"]).upper() != "JWT":
        raise PushError(f"the JWT's typ is {header['typ']!r}")
    signature = unb64url(parts[2], "the JWT signature")
    if len(signature) != 64:
        raise PushError(f"the JWT signature is {len(signature)} octets; ES256 is r‖s, 64 octets "
                        "(RFC 7518 §3.4; DER is not allowed)")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(der, f"{parts[0]}.{parts[1]}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise PushError("the JWT's ES256 signature does not verify under k") from None
    if not isinstance(claims, dict):
        raise PushError(f"the JWT claims are not an object: {claims!r:.80}")
    if claims.get("aud") != audience:
        raise PushError(f"aud is {claims.get('aud')!r}, not the endpoint's origin {audience!r} (RFC 8292 §2)")
    expiry = claims.get("exp")
    if not isinstance(expiry, int) or isinstance(expiry, bool):
        raise PushError(f"exp is {expiry!r}, not an integer NumericDate (RFC 8292 §2, RFC 7519 §4.1.4)")
    if expiry <= now:
        raise PushError(f"exp is {expiry}, {now - expiry:.0f} s in the past")
    if expiry > now + 24 * 3600:
        raise PushError(f"exp is {expiry - now:.0f} s away; RFC 8292 §2 allows at most 24 hours")
    if claims.get("sub") != subject:
        raise PushError(f"sub is {claims.get('sub')!r}, not {subject!r}")
    return claims


def check_headers(headers: dict) -> list[str]:
    """RFC 8030 and RFC 8291's header rules; `headers` maps lower-case names to lists of values."""
    problems = []

    def one(name):
        values = headers.get(name, [])
        if len(values) > 1:
            problems.append(f"{name} is sent {len(values)} times")
        return values[0].strip() if values else None

    ttl = one("ttl")
    if ttl is None:
        problems.append("no TTL header (RFC 8030 §5.2 makes it required)")
    elif not ttl.isdigit():
        problems.append(f"TTL is {ttl!r}, not delta-seconds (RFC 8030 §5.2)")
    urgency = one("urgency")
    if urgency is None:
        problems.append("no Urgency header (the service promises one)")
    elif urgency not in URGENCIES:
        problems.append(f"Urgency is {urgency!r}, not one of {sorted(URGENCIES)} (RFC 8030 §5.3)")
    topic = one("topic")
    if topic is not None and (len(topic) > 32 or not UNPADDED_B64URL.match(topic)):
        problems.append(f"Topic {topic!r} is not at most 32 base64url characters (RFC 8030 §5.4)")
    encoding = one("content-encoding")
    if encoding != "aes128gcm":
        problems.append(f"Content-Encoding is {encoding!r}; RFC 8291 §4 wants exactly aes128gcm")
    content_type = one("content-type")
    if content_type is None or content_type.split(";")[0].strip().lower() != "application/octet-stream":
        problems.append(f"Content-Type is {content_type!r}, not application/octet-stream")
    return problems


HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
CJK = re.compile("[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u4e00-\u9fff\uac00-\ud7a3]")
KANA = re.compile("[\u3040-\u30ff]")


def check_language(text: str, language: str) -> str | None:
    """A problem if `text` is plainly not in `language` (ko: has Hangul; ja: has kana; en: Latin
    letters and no Korean or Japanese script)."""
    if language == "ko" and not HANGUL.search(text):
        return f"title {text!r} has no Hangul (the subscriber asked for ko)"
    if language == "ja" and not KANA.search(text):
        return f"title {text!r} has no kana (the subscriber asked for ja)"
    if language == "en" and (CJK.search(text) or not re.search("[A-Za-z]", text)):
        return f"title {text!r} is not English (the subscriber asked for en)"
    return None


def check_payload(plaintext: bytes, language: str) -> tuple[dict | None, list[str]]:
    """The payload the service promises: `{notification_id, type, title, body, url}`."""
    try:
        payload = json.loads(plaintext.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        return None, [f"the payload is not UTF-8 JSON ({error}): {plaintext[:80]!r}"]
    if not isinstance(payload, dict):
        return None, [f"the payload is not a JSON object: {payload!r:.80}"]
    problems = []
    identifier = payload.get("notification_id")
    if not isinstance(identifier, int) or isinstance(identifier, bool) or identifier <= 0:
        problems.append(f"notification_id is {identifier!r}, not a positive integer")
    if payload.get("type") not in TYPES:
        problems.append(f"type is {payload.get('type')!r}, not one of {sorted(TYPES)}")
    for field in ("title", "body", "url"):
        if not isinstance(payload.get(field), str) or not payload[field]:
            problems.append(f"{field} is {payload.get(field)!r}, not a non-empty string")
    if isinstance(payload.get("title"), str):
        wrong = check_language(payload["title"], language)
        if wrong:
            problems.append(wrong)
    return payload, problems


def inspect(headers: dict, body: bytes, subscription: Subscription, service_key: bytes | None,
            audience: str, subject: str, now: float | None = None) -> tuple[dict | None, dict | None, list[str]]:
    """Everything a browser and its push service would check of one push request. Answers
    (payload, JWT claims, problems); a payload only when the body decrypted."""
    now = time.time() if now is None else now
    problems = check_headers(headers)
    claims = None
    try:
        authorization = headers.get("authorization", [])
        if len(authorization) > 1:
            raise PushError(f"Authorization is sent {len(authorization)} times")
        claims = verify_vapid(authorization[0] if authorization else None, service_key, audience, subject, now)
    except PushError as error:
        problems.append(f"VAPID: {error}")
    ours = theirs = None
    try:
        ours = decrypt_rfc8291(body, subscription)
    except PushError as error:
        problems.append(f"RFC 8291: {error}")
    try:
        theirs = decrypt_http_ece(body, subscription)
    except PushError as error:
        problems.append(str(error))
    if ours is not None and theirs is not None and ours != theirs:
        problems.append(f"this module and http_ece decrypt to different plaintexts ({ours[:40]!r} / {theirs[:40]!r})")
    plaintext = ours if ours is not None else theirs
    payload = None
    if plaintext is not None:
        payload, payload_problems = check_payload(plaintext, subscription.language)
        problems.extend(payload_problems)
    return payload, claims, problems
