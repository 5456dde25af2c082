"""A throw-away SeaweedFS (scripts/seaweedfs --print-env) for the checks and benchmarks: started,
paused and resumed (its S3 gateway only), stopped."""

import json
import os
import urllib.error
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "seaweedfs")


class SeaweedFS:
    def __init__(self):
        output = subprocess.run([SCRIPT, "--print-env"], capture_output=True, text=True, check=True).stdout
        self.variables: dict[str, str] = {}
        for line in output.splitlines():
            if line.startswith("export ") and "=" in line:
                name, _, value = line[len("export "):].partition("=")
                self.variables[name] = value.strip().strip("'\"")
        self.folder = self.variables["BURGERMAP_TEST_S3_DIR"]
        self.endpoint = self.variables["BURGERMAP_TEST_S3_ENDPOINT"]
        self.bucket = self.variables["BURGERMAP_TEST_S3_BUCKET"]

    def service_environment(self, environment: dict) -> dict:
        """`environment` with the service's keys."""
        return dict(environment, AWS_ACCESS_KEY_ID=self.variables["BURGERMAP_TEST_S3_ACCESS_KEY"],
                    AWS_SECRET_ACCESS_KEY=self.variables["BURGERMAP_TEST_S3_SECRET_KEY"])

    def options(self, prefix: str) -> list[str]:
        """`burgermap serve`'s options for a prefix of the bucket."""
        return ["--photo-store", f"s3://{self.bucket}/{prefix}", "--s3-endpoint", self.endpoint]

    def pause(self):
        subprocess.run([SCRIPT, "--pause", self.folder], check=True)

    def resume(self):
        subprocess.run([SCRIPT, "--resume", self.folder], check=True)

    def stop(self):
        subprocess.run([SCRIPT, "--stop", self.folder], check=False)

    def object_names(self, prefix: str) -> set[str]:
        """The names under `prefix/` of the bucket's objects, read from the filer's own listing
        (not through the S3 API the service uses)."""
        import urllib.request

        names: set[str] = set()
        last = ""
        while True:
            request = urllib.request.Request(
                f"{self.variables['BURGERMAP_TEST_S3_FILER']}/buckets/{self.bucket}/{prefix}/?limit=1000"
                f"&lastFileName={last}", headers={"Accept": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    listing = json.load(response)
            except urllib.error.HTTPError as error:
                if error.code == 404:
                    return names
                raise
            entries = listing.get("Entries") or []
            for entry in entries:
                names.add(entry["FullPath"].rsplit("/", 1)[1])
            if not listing.get("ShouldDisplayLoadMore"):
                return names
            last = listing.get("LastFileName", "")
