#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "JPEGShared.h"

/* A destination that grows one malloc'd buffer we own, so an error path can always free it. */
typedef struct {
    struct jpeg_destination_mgr base;
    uint8_t *buffer;
    size_t capacity;
} bm_memory_destination;

static void bm_destination_init(j_compress_ptr cinfo) {
    bm_memory_destination *dest = (bm_memory_destination *)cinfo->dest;
    dest->base.next_output_byte = dest->buffer;
    dest->base.free_in_buffer = dest->capacity;
}

static boolean bm_destination_grow(j_compress_ptr cinfo) {
    bm_memory_destination *dest = (bm_memory_destination *)cinfo->dest;
    size_t capacity = dest->capacity * 2;
    uint8_t *grown = realloc(dest->buffer, capacity);
    if (grown == NULL) {
        ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    }
    dest->base.next_output_byte = grown + dest->capacity;
    dest->base.free_in_buffer = capacity - dest->capacity;
    dest->buffer = grown;
    dest->capacity = capacity;
    return TRUE;
}

static void bm_destination_term(j_compress_ptr cinfo) { (void)cinfo; }

/* Everything one encode call owns, on the heap so that no local changes between setjmp and
 * longjmp (such locals would be indeterminate after the jump). */
typedef struct {
    struct jpeg_compress_struct cinfo;
    bm_jpeg_error error;
    bm_memory_destination dest;
} bm_jpeg_writer;

/* Answers the address of row `row` once it is available, or NULL to give up. */
typedef const uint8_t *(*bm_row_source)(void *context, int row);


static int bm_jpeg_encode_rows(const uint8_t *pixels, size_t pixels_size, int width,
                               int height, int color, int quality, int progressive,
                               bm_row_source source, void *context, uint8_t **output,
                               size_t *output_size, char *message, size_t message_size) {
    int components = color == BM_COLOR_GRAY ? 1 : color == BM_COLOR_CMYK ? 4 : 3;
    size_t needed = bm_image_bytes(width, height, components);
    if (pixels == NULL || needed == 0 || pixels_size < needed) {
        bm_copy_message(message, message_size,
                        needed == 0 ? "image side out of range" : "pixel buffer smaller than the image");
        return BM_IMAGE_ERROR;
    }
    bm_jpeg_writer *writer = calloc(1, sizeof(bm_jpeg_writer));
    if (writer == NULL) {
        bm_copy_message(message, message_size, "out of memory");
        return BM_IMAGE_ERROR;
    }
    j_compress_ptr cinfo = &writer->cinfo;
    bm_jpeg_error_init(&writer->error);
    cinfo->err = &writer->error.base;
    writer->dest.capacity = (size_t)width * (size_t)height / 4 + 4096;
    writer->dest.buffer = malloc(writer->dest.capacity);
    if (setjmp(writer->error.jump)) {
        bm_copy_message(message, message_size, writer->error.last_message);
        jpeg_destroy_compress(cinfo);
        free(writer->dest.buffer);
        free(writer);
        return BM_IMAGE_ERROR;
    }
    jpeg_create_compress(cinfo);
    if (writer->dest.buffer == NULL) {
        ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    }
    writer->dest.base.init_destination = bm_destination_init;
    writer->dest.base.empty_output_buffer = bm_destination_grow;
    writer->dest.base.term_destination = bm_destination_term;
    cinfo->dest = &writer->dest.base;
    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    switch (color) {
    case BM_COLOR_GRAY:
        cinfo->input_components = 1;
        cinfo->in_color_space = JCS_GRAYSCALE;
        break;
    case BM_COLOR_CMYK:
        cinfo->input_components = 4;
        cinfo->in_color_space = JCS_CMYK;
        break;
    default:
        cinfo->input_components = 3;
        cinfo->in_color_space = JCS_RGB;
        break;
    }
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    cinfo->optimize_coding = TRUE;
    cinfo->dct_method = JDCT_ISLOW;
    if (progressive) {
        jpeg_simple_progression(cinfo);
    }
    jpeg_start_compress(cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)cinfo->input_components;
    while (cinfo->next_scanline < cinfo->image_height) {
        if (source != NULL && source(context, (int)cinfo->next_scanline) == NULL) {
            bm_copy_message(message, message_size, "aborted");
            jpeg_destroy_compress(cinfo);
            free(writer->dest.buffer);
            free(writer);
            return BM_IMAGE_ERROR;
        }
        JSAMPROW rows[1] = {(JSAMPROW)(pixels + (size_t)cinfo->next_scanline * stride)};
        jpeg_write_scanlines(cinfo, rows, 1);
    }
    jpeg_finish_compress(cinfo);
    *output = writer->dest.buffer;
    *output_size = writer->dest.capacity - writer->dest.base.free_in_buffer;
    jpeg_destroy_compress(cinfo);
    free(writer);
    return BM_IMAGE_OK;
}

int bm_jpeg_encode(const uint8_t *pixels, size_t pixels_size, int width, int height, int color,
                   int quality, int progressive, uint8_t **output, size_t *output_size,
                   char *message, size_t message_size) {
    return bm_jpeg_encode_rows(pixels, pixels_size, width, height, color, quality, progressive,
                               NULL, NULL, output, output_size, message, message_size);
}

/* The state shared by the decoding thread and the encoding thread of one transcode. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int rows_ready; /* guarded by lock */
    int aborted;    /* guarded by lock */
    const uint8_t *pixels;
    size_t capacity;
    int width, height, quality;
    int status;
    uint8_t *output;
    size_t output_size;
    char message[JMSG_LENGTH_MAX];
} bm_transcode;

static void bm_transcode_rows_done(void *context, int rows) {
    bm_transcode *job = context;
    pthread_mutex_lock(&job->lock);
    job->rows_ready = rows;
    pthread_cond_signal(&job->changed);
    pthread_mutex_unlock(&job->lock);
}

static const uint8_t *bm_transcode_wait_row(void *context, int row) {
    bm_transcode *job = context;
    pthread_mutex_lock(&job->lock);
    while (job->rows_ready <= row && !job->aborted) pthread_cond_wait(&job->changed, &job->lock);
    int aborted = job->aborted;
    pthread_mutex_unlock(&job->lock);
    return aborted ? NULL : job->pixels;
}

static void *bm_transcode_encoder(void *context) {
    bm_transcode *job = context;
    job->status = bm_jpeg_encode_rows(job->pixels, job->capacity, job->width, job->height,
                                      BM_COLOR_RGB, job->quality, 0, bm_transcode_wait_row, job,
                                      &job->output, &job->output_size, job->message,
                                      sizeof job->message);
    return NULL;
}

int bm_jpeg_decode_and_encode(bm_jpeg_reader *reader, int scale_num, uint8_t *pixels,
                              size_t capacity, int quality, uint8_t **output,
                              size_t *output_size, char *message, size_t message_size) {
    int width = 0, height = 0;
    if (bm_jpeg_scaled_size(reader, scale_num, &width, &height, message, message_size) !=
        BM_IMAGE_OK) {
        return BM_IMAGE_ERROR;
    }
    bm_transcode *job = calloc(1, sizeof(bm_transcode));
    if (job == NULL) {
        bm_copy_message(message, message_size, "out of memory");
        return BM_IMAGE_ERROR;
    }
    pthread_mutex_init(&job->lock, NULL);
    pthread_cond_init(&job->changed, NULL);
    job->pixels = pixels;
    job->capacity = capacity;
    job->width = width;
    job->height = height;
    job->quality = quality;
    pthread_t encoder;
    int threaded = pthread_create(&encoder, NULL, bm_transcode_encoder, job) == 0;
    int status = bm_jpeg_decode_rows(reader, scale_num, pixels, capacity,
                                     threaded ? bm_transcode_rows_done : NULL, job, message,
                                     message_size);
    if (threaded) {
        if (status != BM_IMAGE_OK) {
            pthread_mutex_lock(&job->lock);
            job->aborted = 1;
            pthread_cond_signal(&job->changed);
            pthread_mutex_unlock(&job->lock);
        }
        pthread_join(encoder, NULL);
    } else if (status == BM_IMAGE_OK) {
        bm_transcode_encoder(job);
    }
    if (status == BM_IMAGE_OK && job->status != BM_IMAGE_OK) {
        bm_copy_message(message, message_size, job->message);
        status = BM_IMAGE_ERROR;
    }
    if (status == BM_IMAGE_OK) {
        *output = job->output;
        *output_size = job->output_size;
    } else if (job->status == BM_IMAGE_OK) {
        free(job->output);
    }
    pthread_cond_destroy(&job->changed);
    pthread_mutex_destroy(&job->lock);
    free(job);
    return status;
}

void bm_image_free(void *buffer) { free(buffer); }
