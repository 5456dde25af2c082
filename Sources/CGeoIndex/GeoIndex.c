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

/// Nearest distance from the point to the meridian segment at `edge_lng` between the latitudes.
static double meridian_segment_distance(double lat, double lng, double cos_lat, double min_lat,
                                        double max_lat, double edge_lng) {
    double d_lng = lng - edge_lng;
    // Latitude of the point of the whole meridian nearest to (lat, lng).
    double foot = atan2(sin(lat), cos_lat * cos(d_lng));
    if (foot >= min_lat && foot <= max_lat) {
        return haversine_rad(lat, lng, cos_lat, foot, edge_lng);
    }
    // Distance along a meridian is unimodal: off the foot, the nearest point is an end.
    double a = haversine_rad(lat, lng, cos_lat, min_lat, edge_lng);
    double b = haversine_rad(lat, lng, cos_lat, max_lat, edge_lng);
    return a < b ? a : b;
}

double bm_box_min_distance_m(double lat, double lng, double min_lat, double max_lat,
                             double min_lng, double max_lng) {
    if (lng >= min_lng && lng <= max_lng) {
        // A point inside the longitude span: the nearest point is straight north or south.
        if (lat < min_lat) return (min_lat - lat) * DEG * BM_EARTH_RADIUS_M;
        if (lat > max_lat) return (lat - max_lat) * DEG * BM_EARTH_RADIUS_M;
        return 0.0;
    }
    double lat_r = lat * DEG, lng_r = lng * DEG, cos_lat = cos(lat_r);
    double a = meridian_segment_distance(lat_r, lng_r, cos_lat, min_lat * DEG, max_lat * DEG,
                                         min_lng * DEG);
    double b = meridian_segment_distance(lat_r, lng_r, cos_lat, min_lat * DEG, max_lat * DEG,
                                         max_lng * DEG);
    return a < b ? a : b;
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

double bm_leaf_score_m(double lat, double lng, double min_lat, double max_lat, double min_lng,
                       double max_lng) {
    // Leaf boxes are points rounded outwards by at most a few metres: the distance to the
    // clamped point differs from the true box distance by far less than the slack.
    double q_lat = lat < min_lat ? min_lat : (lat > max_lat ? max_lat : lat);
    double q_lng = lng;
    if (lng < min_lng || lng > max_lng) {
        double to_min = fabs(remainder(lng - min_lng, 360.0));
        double to_max = fabs(remainder(lng - max_lng, 360.0));
        q_lng = to_min < to_max ? min_lng : max_lng;
    }
    double d = bm_haversine_m(lat, lng, q_lat, q_lng) - SCORE_SLACK_M;
    return d > 0.0 ? d : 0.0;
}

static int nearest_query(sqlite3_rtree_query_info *info) {
    if (info->nParam != 4 || info->nCoord != 4) return SQLITE_ERROR;
    double lat = info->aParam[0], lng = info->aParam[1];
    double radius = info->aParam[2], after = info->aParam[3];
    const sqlite3_rtree_dbl *c = info->aCoord;  // min_lng, max_lng, min_lat, max_lat
    double score = info->iLevel == 0 ? bm_leaf_score_m(lat, lng, c[2], c[3], c[0], c[1])
                                     : bm_box_min_distance_m(lat, lng, c[2], c[3], c[0], c[1]);
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
