"""Real JPEG files for uploads (made once with libjpeg-turbo's `cjpeg`) and multipart bodies."""

import random
import subprocess
import uuid


def make_jpegs(count, seed):
    """`count` small, different baseline JPEGs: seeded colour gradients with noise, encoded by
    `cjpeg` from a binary PPM (scripts/setup installs libjpeg-turbo-progs)."""
    rng = random.Random(seed)
    images = []
    for index in range(count):
        width, height = rng.choice([(96, 64), (160, 120), (240, 180), (320, 200)])
        base = [rng.randrange(256) for _ in range(3)]
        pixels = bytearray()
        for y in range(height):
            for x in range(width):
                noise = rng.randrange(8)
                pixels += bytes(((base[0] + x + noise) % 256, (base[1] + y) % 256, (base[2] + x * y // 64) % 256))
        ppm = f"P6\n{width} {height}\n255\n".encode() + bytes(pixels)
        jpeg = subprocess.run(["cjpeg", "-quality", "85"], input=ppm, capture_output=True, check=True).stdout
        if jpeg[:2] != b"\xff\xd8" or jpeg[-2:] != b"\xff\xd9":
            raise RuntimeError("cjpeg did not write a JPEG")
        images.append((f"photo{index}.jpg", jpeg))
    return images


def multipart(fields, files):
    """A multipart/form-data body: `fields` as (name, text), `files` as (name, filename, bytes).
    Answers (body, content type)."""
    boundary = f"crashtest-{uuid.uuid4().hex}"
    chunks = []
    for name, value in fields:
        chunks.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode())
        chunks.append(value.encode() + b"\r\n")
    for name, filename, data in files:
        chunks.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: image/jpeg\r\n\r\n".encode())
        chunks.append(data + b"\r\n")
    chunks.append(f"--{boundary}--\r\n".encode())
    return b"".join(chunks), f"multipart/form-data; boundary={boundary}"
