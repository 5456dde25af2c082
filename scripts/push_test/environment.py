"""The virtual environment of the scripts that use this package's receiver (scripts/push-test,
scripts/multi-instance): http_ece and cryptography from PyPI, pinned, in .build/push-test (made
on first use, as scripts/contract does for Schemathesis). Standard library only: it runs before
the packages are there."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, ".build", "push-test")
PINS = {"http_ece": "1.2.1", "cryptography": "50.0.2"}


def in_virtual_environment(script: str, venv: str = VENV, pins: dict = PINS):
    """Runs `script` (the caller's own path) again in `venv` (.build/push-test) with the pinned
    packages (made when missing); returns at once when already running there."""
    VENV, PINS = venv, pins  # noqa: N806  (the defaults' names, for the lines below)
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    probe = ("import sys; from importlib.metadata import version; "
             "print(' '.join(version(name) for name in sys.argv[1:]))")
    ready = os.path.exists(python) and subprocess.run(
        [python, "-c", probe, *PINS], capture_output=True, text=True).stdout.split() == list(PINS.values())
    if not ready:
        pins = [f"{name}=={version}" for name, version in PINS.items()]
        print(f"installing {' '.join(pins)} into {os.path.relpath(VENV, ROOT)}", flush=True)
        subprocess.run(["python3", "-m", "venv", "--clear", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pins], check=True)
    sys.stdout.flush()
    os.execv(python, [python, os.path.abspath(script), *sys.argv[1:]])
