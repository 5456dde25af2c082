#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "ImageShared.h"

/* libpng's simplified API keeps its own setjmp inside: errors come back as a zero return and a
 * message in `image.message`, and png_image_free releases everything. */
struct bm_png_reader {
    png_image image;
};

bm_png_reader *bm_png_open(const uint8_t *data, size_t size, int *width, int *height,
                           char *message, size_t message_size) {
    bm_png_reader *reader = calloc(1, sizeof(bm_png_reader));
    if (reader == NULL) {
        bm_copy_message(message, message_size, "out of memory");
        return NULL;
    }
    reader->image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&reader->image, data, size)) {
        bm_copy_message(message, message_size, reader->image.message);
        png_image_free(&reader->image);
        free(reader);
        return NULL;
    }
    *width = (int)reader->image.width;
    *height = (int)reader->image.height;
    return reader;
}

int bm_png_decode_rgb(bm_png_reader *reader, uint8_t *pixels, size_t capacity, char *message,
                      size_t message_size) {
    reader->image.format = PNG_FORMAT_RGB;
    /* Not PNG_IMAGE_SIZE: libpng computes it in 32 bits, which wraps for large declared sizes. */
    size_t needed = bm_image_bytes((int)reader->image.width, (int)reader->image.height, 3);
    if (pixels == NULL || needed == 0 || capacity < needed) {
        bm_copy_message(message, message_size, "pixel buffer too small for the decoded image");
        return BM_IMAGE_ERROR;
    }
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&reader->image, &white, pixels, 0, NULL)) {
        bm_copy_message(message, message_size, reader->image.message);
        return BM_IMAGE_ERROR;
    }
    return BM_IMAGE_OK;
}

void bm_png_close(bm_png_reader *reader) {
    if (reader == NULL) return;
    png_image_free(&reader->image);
    free(reader);
}
