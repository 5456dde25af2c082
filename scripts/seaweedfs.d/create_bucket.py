"""Creates a bucket on an S3 endpoint with a SigV4-signed PUT, retrying until the server answers.

Used by scripts/seaweedfs as its readiness check: the first answer to a signed request means the
gateway and the filer behind it are up. A bucket that exists already (BucketAlreadyOwnedByYou or
BucketAlreadyExists) counts as created.
    create_bucket.py ENDPOINT BUCKET ACCESS_KEY SECRET_KEY SECONDS
"""

import datetime
import hashlib
import hmac
import sys
import time
import urllib.error
import urllib.request


def signed_put(endpoint, bucket, access_key, secret_key, region="us-east-1"):
    host = endpoint.split("://", 1)[1]
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload = hashlib.sha256(b"").hexdigest()
    headers = {"host": host, "x-amz-content-sha256": payload, "x-amz-date": stamp}
    names = ";".join(sorted(headers))
    canonical = "\n".join(
        ["PUT", f"/{bucket}", ""] + [f"{k}:{headers[k]}" for k in sorted(headers)] + ["", names, payload])
    scope = f"{day}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secret_key).encode()
    for part in (day, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    request = urllib.request.Request(f"{endpoint}/{bucket}", method="PUT", data=b"")
    for name, value in headers.items():
        if name != "host":
            request.add_header(name, value)
    request.add_header(
        "Authorization",
        f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={names}, Signature={signature}")
    return urllib.request.urlopen(request, timeout=2)


def main():
    endpoint, bucket, access_key, secret_key, seconds = sys.argv[1:6]
    deadline = time.monotonic() + float(seconds)
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            signed_put(endpoint, bucket, access_key, secret_key).read()
            return 0
        except urllib.error.HTTPError as error:
            body = error.read().decode(errors="replace")
            if error.code == 409 and "BucketAlready" in body:
                return 0
            last = f"HTTP {error.code}: {body[:300]}"
        except (OSError, urllib.error.URLError) as error:
            last = str(error)
        time.sleep(0.1)
    print(f"create_bucket: {endpoint}/{bucket}: {last}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
