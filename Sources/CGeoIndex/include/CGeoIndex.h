#ifndef CGEOINDEX_H
#define CGEOINDEX_H

#include <stddef.h>
/* Forward declaration: Swift code reaches SQLite through GRDBSQLite, not this header. */
struct sqlite3;

/// Mean Earth radius of the API contract, in metres.
#define BM_EARTH_RADIUS_M 6371008.8

/// Great-circle distance in metres between two WGS 84 points, by the haversine formula.
double bm_haversine_m(double lat1, double lng1, double lat2, double lng2);

/// A lower bound, in metres, of the distance from (lat, lng) to any point of the
/// latitude/longitude box (min_lng <= max_lng; boxes do not wrap). Cheap (no libm call) and
/// within a millimetre of the truth for small boxes far from the poles: the score that orders
/// the nearest-first search.
double bm_box_score_m(double lat, double lng, double min_lat, double max_lat, double min_lng,
                      double max_lng);

/// An upper bound, in metres, of the distance from (lat, lng) to any point of the box. Cheap
/// (no libm call) and within a few millimetres of the truth for small boxes a few km away.
double bm_box_max_distance_m(double lat, double lng, double min_lat, double max_lat,
                             double min_lng, double max_lng);

/// Registers the R*Tree query function `burgermap_nearest(lat, lng, radius_m, after_m, count)` on
/// a connection. Used as `pkid MATCH burgermap_nearest(...)` against a 2-D R*Tree whose columns
/// are (id, min_lng, max_lng, min_lat, max_lat), it yields the cells within `radius_m`
/// best-first, in increasing order of their lower-bound distance (`bm_box_score_m`), and prunes
/// cells wholly nearer than `after_m` (the last distance of the previous page; -1 for none).
/// With `count` > 0 (at most 1000) it also prunes cells that cannot be among the first `count`
/// results: those beyond the `count`-th smallest upper bound (`bm_box_max_distance_m`) of the
/// entries seen that certainly qualify. Only right when every entry the tree yields is a
/// result, that is with no further filter; pass 0 otherwise. Returns an SQLite result code.
int bm_register_nearest(struct sqlite3 *db);

/// Enables extension loading, loads `file` (for example "mod_spatialite"), and disables loading
/// again, so that SQL cannot load further extensions. On failure returns an SQLite error code and
/// copies the message into `message` (at most `message_size` bytes, NUL-terminated).
int bm_load_extension(struct sqlite3 *db, const char *file, char *message, size_t message_size);

/// Turns off SQLite's memory statistics, which take a global mutex on every allocation. Only
/// works before SQLite initializes (before the first connection opens); returns an SQLite result
/// code (`SQLITE_MISUSE` when too late, which is harmless). `sqlite3_config` is variadic, which
/// Swift cannot call.
int bm_disable_memory_statistics(void);

#endif
