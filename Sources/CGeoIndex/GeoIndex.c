#include <sqlite3.h>

#include "CGeoIndex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEG (M_PI / 180.0)
/// Slack (metres) that keeps a rounded score below the true distance.
#define SCORE_SLACK_M 1e-3

static double haversine_rad(double lat1, double lng1, double cos_lat1, double lat2, double lng2) {
    double s_lat = sin((lat2 - lat1) * 0.5);
    double s_lng = sin((lng2 - lng1) * 0.5);
    double a = s_lat * s_lat + cos_lat1 * cos(lat2) * s_lng * s_lng;
    if (a > 1.0) a = 1.0;
    return 2.0 * BM_EARTH_RADIUS_M * asin(sqrt(a));
}

double bm_haversine_m(double lat1, double lng1, double lat2, double lng2) {
    return haversine_rad(lat1 * DEG, lng1 * DEG, cos(lat1 * DEG), lat2 * DEG, lng2 * DEG);
}

/// Absolute longitude difference in degrees, the short way round (0 to 180).
static inline double lng_gap(double a, double b) {
    double d = fabs(a - b);
    return d > 180.0 ? 360.0 - d : d;
}

/// A lower bound of sin(x) for 0 <= x <= 1: x - x^3/6 (the Taylor series alternates).
static inline double sin_below(double x) {
    return x - x * x * x * (1.0 / 6.0);
}

/// cos(x) for any x, from below: the Taylor series' partial sums alternate around it (within
/// 5e-7 up to pi/2, so that bounds stay tight near the poles too).
static inline double cos_below(double x) {
    double x2 = x * x;
    return 1.0 -
           x2 * (1.0 / 2 - x2 * (1.0 / 24 - x2 * (1.0 / 720 - x2 * (1.0 / 40320 - x2 / 3628800))));
}

/// cos(x) for any x, from above (within 3e-5 up to pi/2).
static inline double cos_above(double x) {
    double x2 = x * x;
    return 1.0 - x2 * (1.0 / 2 - x2 * (1.0 / 24 - x2 * (1.0 / 720 - x2 / 40320)));
}

double bm_box_max_distance_m(double lat, double lng, double min_lat, double max_lat,
                             double min_lng, double max_lng) {
    // The haversine terms from above: the largest latitude and longitude gaps to the box,
    // sin(x) <= x, cos from above (for the query's latitude, and for the box's latitude nearest
    // the equator), and asin(s) = atan(s / sqrt(1 - s^2)) <= s / sqrt(1 - s^2). Only sqrt: the
    // search calls this for every leaf cell it keeps.
    double d_lat = fmax(fabs(lat - min_lat), fabs(lat - max_lat));
    double antipode = lng > 0.0 ? lng - 180.0 : lng + 180.0;
    double d_lng = (antipode >= min_lng && antipode <= max_lng)
                       ? 180.0
                       : fmax(lng_gap(lng, min_lng), lng_gap(lng, max_lng));
    double min_abs_lat = (min_lat <= 0.0 && max_lat >= 0.0) ? 0.0
                         : fmin(fabs(min_lat), fabs(max_lat));
    double half_lat = d_lat * (DEG * 0.5), half_lng = d_lng * (DEG * 0.5);
    double cosines = fmax(0.0, cos_above(lat * DEG)) * fmax(0.0, cos_above(min_abs_lat * DEG));
    double s2 = half_lat * half_lat + cosines * half_lng * half_lng;
    if (s2 >= 0.5) return M_PI * BM_EARTH_RADIUS_M;
    return 2.0 * BM_EARTH_RADIUS_M * sqrt(s2 / (1.0 - s2)) * (1.0 + 1e-12) + SCORE_SLACK_M;
}

/// A lower bound of s^2, where s = sin(d / 2R) and d is the distance from (lat, lng) to any point
/// of the box. With s^2 = sin^2(dlat / 2) + cos(lat1) cos(lat2) sin^2(dlng / 2) growing with
/// |dlat| and |dlng|, the smallest latitude and longitude gaps to the box bound it from below, and
/// so do
/// - each sine's cubic Taylor bound x - x^3/6 (for 0 <= x <= 1; the sine itself above that),
/// - cos^2 of the pole-most latitude involved, for cos(lat1) cos(lat2), itself from below.
/// No libm call (not even sqrt): this runs for every cell the search looks at.
static inline double box_min_s2(double lat, double lng, double min_lat, double max_lat,
                                double min_lng, double max_lng) {
    double q_lat = lat < min_lat ? min_lat : (lat > max_lat ? max_lat : lat);
    double d_lng = 0.0;
    if (lng < min_lng || lng > max_lng) {
        double to_min = lng_gap(lng, min_lng), to_max = lng_gap(lng, max_lng);
        d_lng = to_min < to_max ? to_min : to_max;
    }
    double half_lat = fabs(lat - q_lat) * (DEG * 0.5);
    double half_lng = d_lng * (DEG * 0.5);
    double s_lat = half_lat <= 1.0 ? sin_below(half_lat) : sin(half_lat);
    double s_lng = half_lng <= 1.0 ? sin_below(half_lng) : sin(half_lng);
    double c = fmax(0.0, cos_below(fmax(fabs(lat), fmax(fabs(min_lat), fabs(max_lat))) * DEG));
    return s_lat * s_lat + c * c * s_lng * s_lng;
}

/// The s^2 of `box_min_s2` at which the score in metres passes `metres`: score > metres exactly
/// when s^2 > this (for metres >= 0).
static inline double score_s2(double metres) {
    double s = (metres + SCORE_SLACK_M) / (2.0 * BM_EARTH_RADIUS_M);
    return s * s;
}

double bm_box_score_m(double lat, double lng, double min_lat, double max_lat, double min_lng,
                      double max_lng) {
    // d = 2R asin(s) >= 2R s.
    double s2 = box_min_s2(lat, lng, min_lat, max_lat, min_lng, max_lng);
    return fmax(0.0, 2.0 * BM_EARTH_RADIUS_M * sqrt(s2) - SCORE_SLACK_M);
}

/// One search's running bound: the `capacity` smallest upper distance bounds among the leaf
/// cells seen so far that certainly belong to the results (within the radius, after the cursor),
/// as a max-heap. Once full, no cell whose lower bound exceeds its top can be among the first
/// `capacity` results, so such cells never enter SQLite's queue.
typedef struct {
    int capacity;
    int count;
    double heap[];
} NearestBound;

static void bound_offer(NearestBound *bound, double upper) {
    double *heap = bound->heap;
    if (bound->count < bound->capacity) {
        int i = bound->count++;
        while (i > 0 && heap[(i - 1) / 2] < upper) {
            heap[i] = heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        heap[i] = upper;
    } else if (upper < heap[0]) {
        int i = 0, n = bound->count;
        while (1) {
            int child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && heap[child + 1] > heap[child]) child++;
            if (heap[child] <= upper) break;
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = upper;
    }
}

static int nearest_query(sqlite3_rtree_query_info *info) {
    if (info->nParam != 5 || info->nCoord != 4) return SQLITE_ERROR;
    double lat = info->aParam[0], lng = info->aParam[1];
    double radius = info->aParam[2], after = info->aParam[3];
    int capacity = (int)info->aParam[4];
    const sqlite3_rtree_dbl *c = info->aCoord;  // min_lng, max_lng, min_lat, max_lat
    NearestBound *bound = info->pUser;
    if (bound == NULL && capacity > 0 && capacity <= 1000) {
        bound = sqlite3_malloc(sizeof(NearestBound) + sizeof(double) * (size_t)capacity);
        if (bound == NULL) return SQLITE_NOMEM;
        bound->capacity = capacity;
        bound->count = 0;
        info->pUser = bound;
        info->xDelUser = sqlite3_free;
    }
    // Compared and ordered as s^2, which grows with the score in metres (`bm_box_score_m`, which
    // Swift reads back) but needs no square root.
    double s2 = box_min_s2(lat, lng, c[2], c[3], c[0], c[1]);
    if (s2 > score_s2(radius) ||
        (bound != NULL && bound->count == bound->capacity && s2 > score_s2(bound->heap[0]))) {
        info->eWithin = NOT_WITHIN;
        return SQLITE_OK;
    }
    if (after >= 0.0 || (bound != NULL && info->iLevel == 0)) {
        double upper = bm_box_max_distance_m(lat, lng, c[2], c[3], c[0], c[1]);
        if (upper < after) {
            info->eWithin = NOT_WITHIN;
            return SQLITE_OK;
        }
        if (bound != NULL && info->iLevel == 0 && upper <= radius && (after < 0.0 || s2 > score_s2(after))) {
            bound_offer(bound, upper);
        }
    }
    info->eWithin = PARTLY_WITHIN;
    info->rScore = s2;
    return SQLITE_OK;
}

int bm_register_nearest(sqlite3 *db) {
    return sqlite3_rtree_query_callback(db, "burgermap_nearest", nearest_query, NULL, NULL);
}

int bm_load_extension(sqlite3 *db, const char *file, char *message, size_t message_size) {
    char *error = NULL;
    int rc = sqlite3_enable_load_extension(db, 1);
    if (rc == SQLITE_OK) {
        rc = sqlite3_load_extension(db, file, NULL, &error);
        sqlite3_enable_load_extension(db, 0);
    }
    if (rc != SQLITE_OK && message != NULL && message_size > 0) {
        const char *text = error != NULL ? error : sqlite3_errmsg(db);
        strncpy(message, text, message_size - 1);
        message[message_size - 1] = '\0';
    }
    sqlite3_free(error);
    return rc;
}

int bm_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
