#ifndef BM_JPEG_SHARED_H
#define BM_JPEG_SHARED_H

/* What the JPEG decoder and encoder files share; not part of the public header. */

#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>
#include <jerror.h>

#include "ImageShared.h"

/* An error manager whose error_exit jumps back to the active call instead of exiting. */
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char last_message[JMSG_LENGTH_MAX];
    /* 1 while decoding pixels: the first warning jumps back like an error. */
    int warnings_fatal;
} bm_jpeg_error;

/* Sets up `error` so that fatal errors jump back and warnings are counted, never printed (and
 * jump back too once `warnings_fatal` is set). */
void bm_jpeg_error_init(bm_jpeg_error *error);

struct bm_jpeg_reader {
    struct jpeg_decompress_struct cinfo;
    bm_jpeg_error error;
    /* Called by libjpeg as it reads: refuses files with more than BM_JPEG_MAX_SCANS scans. */
    struct jpeg_progress_mgr progress;
};

/* Called after rows are decoded, with how many are complete. */
typedef void (*bm_rows_done)(void *context, int rows);

/* Decodes like bm_jpeg_decode_rgb, reporting finished rows to `rows_done` when it is not NULL.
 * `capacity` is checked against the output size before any row is written. */
int bm_jpeg_decode_rows(bm_jpeg_reader *reader, int scale_num, uint8_t *pixels, size_t capacity,
                        bm_rows_done rows_done, void *context, char *message,
                        size_t message_size);

#endif
