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

double bm_box_max_distance_m(double lat, double lng, double min_lat, double max_lat,
                             double min_lng, double max_lng) {
    // Triangle inequality through the box centre. A point of the box is reached from the
    // centre along its meridian and then its parallel; a parallel is never shorter than the
    // great circle, and it is longest where |latitude| is smallest.
    double c_lat = 0.5 * (min_lat + max_lat), c_lng = 0.5 * (min_lng + max_lng);
    double min_abs_lat = (min_lat <= 0.0 && max_lat >= 0.0) ? 0.0
                         : fmin(fabs(min_lat), fabs(max_lat));
    double half_lat = 0.5 * (max_lat - min_lat) * DEG;
    double half_lng = 0.5 * (max_lng - min_lng) * DEG;
    double radius = BM_EARTH_RADIUS_M * (half_lat + cos(min_abs_lat * DEG) * half_lng);
    return bm_haversine_m(lat, lng, c_lat, c_lng) + radius + SCORE_SLACK_M;
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

double bm_box_score_m(double lat, double lng, double min_lat, double max_lat, double min_lng,
                      double max_lng) {
    // With s = sin(d / 2R), s^2 = sin^2(dlat / 2) + cos(lat1) cos(lat2) sin^2(dlng / 2) grows with
    // |dlat| and |dlng|, so the smallest latitude and longitude gaps to the box bound it from
    // below, and so do
    // - each sine's cubic Taylor bound x - x^3/6 (for 0 <= x <= 1; the sine itself above that),
    // - cos^2 of the pole-most latitude involved, for cos(lat1) cos(lat2),
    // - 2R s, for d = 2R asin(s).
    // One libm call: this runs for every cell the search looks at.
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
    double c = cos(fmax(fabs(lat), fmax(fabs(min_lat), fabs(max_lat))) * DEG);
    double s = sqrt(s_lat * s_lat + c * c * s_lng * s_lng);
    return fmax(0.0, 2.0 * BM_EARTH_RADIUS_M * s - SCORE_SLACK_M);
}

static int nearest_query(sqlite3_rtree_query_info *info) {
    if (info->nParam != 4 || info->nCoord != 4) return SQLITE_ERROR;
    double lat = info->aParam[0], lng = info->aParam[1];
    double radius = info->aParam[2], after = info->aParam[3];
    const sqlite3_rtree_dbl *c = info->aCoord;  // min_lng, max_lng, min_lat, max_lat
    double score = bm_box_score_m(lat, lng, c[2], c[3], c[0], c[1]);
    if (score > radius ||
        (after > 0.0 && bm_box_max_distance_m(lat, lng, c[2], c[3], c[0], c[1]) < after)) {
        info->eWithin = NOT_WITHIN;
        return SQLITE_OK;
    }
    info->eWithin = PARTLY_WITHIN;
    info->rScore = score;
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
