"""A small HTTP client for the checks (one connection per request, as GIS tools often do)."""

import http.client
import json


class Client:
    def __init__(self, port: int):
        self.port = port
        self.users = 0

    def request(self, method: str, path: str, body=None, token=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            sent = dict(headers or {})
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                sent["Content-Type"] = "application/json"
            if token:
                sent["Authorization"] = f"Bearer {token}"
            connection.request(method, path, body=data, headers=sent)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def get(self, path: str, headers=None):
        return self.request("GET", path, headers=headers)

    def json(self, path: str):
        status, _, body = self.get(path)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body[:300]!r}")
        return json.loads(body)

    def tag(self, address) -> str:
        z, x, y = address
        return self.get(f"/tiles/{z}/{x}/{y}.mvt")[1].get("etag")

    def member(self, nickname: str) -> str:
        self.users += 1
        status, _, body = self.request("POST", "/v1/auth/register", {
            "email": f"{nickname}{self.users}@example.org", "password": "correct horse battery",
            "nickname": f"{nickname}{self.users}"})
        if status != 201:
            raise RuntimeError(f"register: {status} {body[:300]!r}")
        return json.loads(body)["access_token"]
