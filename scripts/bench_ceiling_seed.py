"""The seeding half of scripts/bench-ceiling: over HTTP, a reader who follows 50 authors, each
with 20 reviews of one place (one review with a photo), so that the feed's first page, a place's
review page and a thumbnail have something to serve. Prints four lines: the reader's access
token, the place id, the thumbnail's path, the reader's id.
Usage: bench_ceiling_seed.py BASE_URL PHOTO.jpg"""

import json
import sys
import urllib.request
import uuid

base, photo_path = sys.argv[1], sys.argv[2]
PASSWORD = "ceiling-password"


def call(method, path, body=None, token=None, form=None):
    headers = {}
    data = None
    if token:
        headers["Authorization"] = "Bearer " + token
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    if form is not None:
        boundary = uuid.uuid4().hex
        headers["Content-Type"] = "multipart/form-data; boundary=" + boundary
        parts = []
        for name, value, filename in form:
            disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
            head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
            if filename:
                head += "Content-Type: image/jpeg\r\n"
            parts.append(head.encode() + b"\r\n" + (value if isinstance(value, bytes) else value.encode()) + b"\r\n")
        data = b"".join(parts) + f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def member(name):
    body = call("POST", "/v1/auth/register",
                {"email": f"{name}@ceiling.example", "password": PASSWORD, "nickname": name})
    return body["access_token"], body["user"]["id"]


photo = open(photo_path, "rb").read()
reader, reader_id = member("ceilingreader")
place = call("POST", "/v1/places", {"name": "Ceiling Burgers", "lat": 37.5665, "lng": 126.978}, token=reader)["id"]
thumbnail = None
for index in range(50):
    token, author = member(f"ceilingauthor{index}")
    call("PUT", f"/v1/users/{author}/follow", token=reader)
    for number in range(20):
        form = [("rating", str(1 + (index + number) % 5), None),
                ("text", f"Review {number} by author {index}: a smash burger worth the trip.", None)]
        if index == 0 and number == 0:
            form.append(("photo", photo, "photo.jpg"))
        review = call("POST", f"/v1/places/{place}/reviews", token=token, form=form)
        if review["photos"]:
            thumbnail = review["photos"][0]["thumbnail_url"]
print(reader)
print(place)
print(thumbnail)
print(reader_id)
