"""Web Mercator written apart from the service: which tile of a zoom holds a place (by the same
level-30 key rule the service documents: half-open tiles, latitudes beyond ±85.0511° in the
edge row) and where a position falls inside a tile's 4096 units."""

import math

LIMIT = 85.051_128_779_806_59
KEY_LEVEL = 30
SIDE = 1 << KEY_LEVEL


def column(lng: float) -> int:
    return min(max(math.floor((lng + 180) / 360 * SIDE), 0), SIDE - 1)


def row(lat: float) -> int:
    phi = min(max(lat, -LIMIT), LIMIT) * math.pi / 180
    y = 0.5 - math.log(math.tan(math.pi / 4 + phi / 2)) / (2 * math.pi)
    return min(max(math.floor(y * SIDE), 0), SIDE - 1)


def tile(lat: float, lng: float, zoom: int) -> tuple:
    """(z, x, y) of the tile that holds a place."""
    shift = KEY_LEVEL - zoom
    return zoom, column(lng) >> shift, row(lat) >> shift


def cell(lat: float, lng: float, level: int) -> tuple:
    shift = KEY_LEVEL - level
    return column(lng) >> shift, row(lat) >> shift


def point(lat: float, lng: float, address: tuple) -> tuple:
    """A position in tile units (0…4096 from the north-west corner), as MVT puts it."""
    z, x, y = address
    scale = (2 ** z) * 4096
    phi = min(max(lat, -LIMIT), LIMIT) * math.pi / 180
    world_x = (lng + 180) / 360 * scale
    world_y = (1 - math.asinh(math.tan(phi)) / math.pi) / 2 * scale
    return round(world_x - x * 4096), round(world_y - y * 4096)


def in_box(lat: float, lng: float, box: tuple) -> bool:
    """The viewport route's rule: closed bounds, west > east crosses the antimeridian."""
    west, south, east, north = box
    if not (south <= lat <= north):
        return False
    return west <= lng <= east if west <= east else (lng >= west or lng <= east)


def cell_key(column_: int, row_: int) -> int:
    """The documented key of a cell: its column's and row's bits interleaved, column first."""
    key = 0
    for bit in range(31):
        key |= ((column_ >> bit) & 1) << (2 * bit + 1)
        key |= ((row_ >> bit) & 1) << (2 * bit)
    return key
