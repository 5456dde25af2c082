#include <stdlib.h>
#include <string.h>

#include "ImageShared.h"

/* One target pixel's span of source pixels along an axis, with 16.16 fixed-point weights that
 * sum to 65536. */
typedef struct {
    int first;
    int count;
    int weight_offset;
} bm_span;

/* Area-averaging weights for `source` -> `target` along one axis. Returns NULL when out of
 * memory; `weights` receives the weight table (freed by the caller). */
static bm_span *bm_spans(int source, int target, int **weights) {
    bm_span *spans = malloc(sizeof(bm_span) * (size_t)target);
    double scale = (double)source / (double)target;
    int max_count = (int)scale + 3;
    *weights = malloc(sizeof(int) * (size_t)target * (size_t)max_count);
    if (spans == NULL || *weights == NULL) {
        free(spans);
        free(*weights);
        *weights = NULL;
        return NULL;
    }
    for (int t = 0; t < target; t++) {
        double start = t * scale, end = (t + 1) * scale;
        if (end > source) end = source;
        int first = (int)start;
        int last = (int)end;
        if (last >= source) last = source - 1;
        if ((double)last == end && last > first) last--;
        int offset = t * max_count;
        int count = 0, total = 0;
        for (int s = first; s <= last && count < max_count; s++, count++) {
            double lo = s > start ? s : start;
            double hi = s + 1 < end ? s + 1 : end;
            int weight = (int)((hi - lo) / scale * 65536.0 + 0.5);
            (*weights)[offset + count] = weight;
            total += weight;
        }
        /* Rounding leftovers go to the largest contribution so every span sums to exactly 1. */
        int largest = 0;
        for (int i = 1; i < count; i++) {
            if ((*weights)[offset + i] > (*weights)[offset + largest]) largest = i;
        }
        (*weights)[offset + largest] += 65536 - total;
        spans[t] = (bm_span){first, count, offset};
    }
    return spans;
}

/* Checks that `source` holds a `width` x `height` RGB image and `target` room for one of
 * `target_width` x `target_height`; on failure says why in `message`. */
static int bm_check_buffers(const uint8_t *source, size_t source_size, int width, int height,
                            const uint8_t *target, size_t target_capacity, int target_width,
                            int target_height, char *message, size_t message_size) {
    size_t source_needed = bm_image_bytes(width, height, 3);
    size_t target_needed = bm_image_bytes(target_width, target_height, 3);
    if (source_needed == 0 || target_needed == 0) {
        bm_copy_message(message, message_size, "image side out of range");
        return BM_IMAGE_ERROR;
    }
    if (source == NULL || source_size < source_needed) {
        bm_copy_message(message, message_size, "source buffer smaller than its image");
        return BM_IMAGE_ERROR;
    }
    if (target == NULL || target_capacity < target_needed) {
        bm_copy_message(message, message_size, "target buffer smaller than its image");
        return BM_IMAGE_ERROR;
    }
    return BM_IMAGE_OK;
}

int bm_resize_rgb(const uint8_t *source, size_t source_size, int source_width,
                  int source_height, uint8_t *target, size_t target_capacity, int target_width,
                  int target_height, char *message, size_t message_size) {
    if (bm_check_buffers(source, source_size, source_width, source_height, target,
                         target_capacity, target_width, target_height, message,
                         message_size) != BM_IMAGE_OK) {
        return BM_IMAGE_ERROR;
    }
    int *x_weights = NULL, *y_weights = NULL;
    bm_span *x_spans = bm_spans(source_width, target_width, &x_weights);
    bm_span *y_spans = bm_spans(source_height, target_height, &y_weights);
    /* Horizontal pass into 8.8 fixed-point rows, then vertical pass into the target. */
    uint16_t *rows = malloc(sizeof(uint16_t) * (size_t)target_width * 3 * (size_t)source_height);
    size_t stride = (size_t)target_width * 3;
    uint32_t *sums = malloc(sizeof(uint32_t) * stride);
    int status = BM_IMAGE_OUT_OF_MEMORY;
    if (x_spans == NULL || y_spans == NULL || rows == NULL || sums == NULL) {
        bm_copy_message(message, message_size, "out of memory");
        goto done;
    }
    for (int y = 0; y < source_height; y++) {
        const uint8_t *in = source + (size_t)y * (size_t)source_width * 3;
        uint16_t *out = rows + (size_t)y * (size_t)target_width * 3;
        for (int x = 0; x < target_width; x++) {
            bm_span span = x_spans[x];
            const int *w = x_weights + span.weight_offset;
            const uint8_t *p = in + (size_t)span.first * 3;
            uint32_t r = 0, g = 0, b = 0;
            for (int i = 0; i < span.count; i++, p += 3) {
                r += p[0] * (uint32_t)w[i];
                g += p[1] * (uint32_t)w[i];
                b += p[2] * (uint32_t)w[i];
            }
            out[x * 3] = (uint16_t)((r + 128) >> 8);
            out[x * 3 + 1] = (uint16_t)((g + 128) >> 8);
            out[x * 3 + 2] = (uint16_t)((b + 128) >> 8);
        }
    }
    for (int y = 0; y < target_height; y++) {
        bm_span span = y_spans[y];
        const int *w = y_weights + span.weight_offset;
        memset(sums, 0, sizeof(uint32_t) * stride);
        for (int i = 0; i < span.count; i++) {
            const uint16_t *row = rows + (size_t)(span.first + i) * stride;
            uint32_t weight = (uint32_t)w[i] >> 4; /* 12-bit weight keeps the sum in 32 bits */
            for (size_t c = 0; c < stride; c++) sums[c] += row[c] * weight;
        }
        uint8_t *out = target + (size_t)y * stride;
        for (size_t c = 0; c < stride; c++) {
            uint32_t value = (sums[c] + (1u << 19)) >> 20;
            out[c] = (uint8_t)(value > 255 ? 255 : value);
        }
    }
    status = BM_IMAGE_OK;
done:
    free(sums);
    free(x_spans);
    free(x_weights);
    free(y_spans);
    free(y_weights);
    free(rows);
    return status;
}

int bm_orient_rgb(const uint8_t *source, size_t source_size, int width, int height,
                  int orientation, uint8_t *target, size_t target_capacity, char *message,
                  size_t message_size) {
    if (orientation < 1 || orientation > 8) {
        bm_copy_message(message, message_size, "orientation is not 1...8");
        return BM_IMAGE_ERROR;
    }
    int swaps = orientation >= 5 && orientation <= 8;
    int target_width = swaps ? height : width;
    if (bm_check_buffers(source, source_size, width, height, target, target_capacity,
                         target_width, swaps ? width : height, message,
                         message_size) != BM_IMAGE_OK) {
        return BM_IMAGE_ERROR;
    }
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            int tx, ty;
            switch (orientation) {
            case 2: tx = width - 1 - x; ty = y; break;             /* mirrored */
            case 3: tx = width - 1 - x; ty = height - 1 - y; break; /* turned 180° */
            case 4: tx = x; ty = height - 1 - y; break;             /* mirrored vertically */
            case 5: tx = y; ty = x; break;                          /* transposed */
            case 6: tx = height - 1 - y; ty = x; break;             /* turned 90° clockwise */
            case 7: tx = height - 1 - y; ty = width - 1 - x; break; /* transversed */
            case 8: tx = y; ty = width - 1 - x; break;              /* turned 90° counter-clockwise */
            default: tx = x; ty = y; break;
            }
            const uint8_t *in = source + ((size_t)y * (size_t)width + (size_t)x) * 3;
            uint8_t *out = target + ((size_t)ty * (size_t)target_width + (size_t)tx) * 3;
            out[0] = in[0];
            out[1] = in[1];
            out[2] = in[2];
        }
    }
    return BM_IMAGE_OK;
}
