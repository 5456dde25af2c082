#ifndef CIMAGECODEC_H
#define CIMAGECODEC_H

#include <stddef.h>
#include <stdint.h>

/*
 * A small C layer over libjpeg (libjpeg-turbo) and libpng for the photo pipeline.
 *
 * libjpeg reports fatal errors through `error_exit`, which must never return into the library:
 * every function here that calls libjpeg sets a `setjmp` point first, and its error handler
 * `longjmp`s back to it, frees what the call allocated and returns `BM_IMAGE_ERROR` with the
 * library's message copied into `message`. Swift never sees a jump.
 */

enum {
    BM_IMAGE_OK = 0,
    BM_IMAGE_ERROR = 1,
};

/// Colour models a JPEG can be written in (tests use all three; the service writes RGB).
enum {
    BM_COLOR_RGB = 0,
    BM_COLOR_GRAY = 1,
    BM_COLOR_CMYK = 2,
};

/// What a JPEG's headers declare, read before any pixel is decoded.
typedef struct {
    int width;
    int height;
    /// Components in the file (1 grayscale, 3 YCbCr/RGB, 4 CMYK/YCCK).
    int components;
    /// 1 when the file is progressive.
    int progressive;
    /// EXIF orientation 1...8 from an APP1 "Exif" segment, 1 when absent or unreadable.
    int orientation;
} bm_jpeg_info;

/// An open JPEG decoder over a memory buffer (the buffer must outlive it).
typedef struct bm_jpeg_reader bm_jpeg_reader;

/// Reads the headers. Returns NULL on failure, with the reason in `message`.
bm_jpeg_reader *bm_jpeg_open(const uint8_t *data, size_t size, bm_jpeg_info *info, char *message,
                             size_t message_size);

/// The output size when decoding at scale `scale_num`/8 (1...8), by libjpeg's own rounding.
int bm_jpeg_scaled_size(bm_jpeg_reader *reader, int scale_num, int *width, int *height,
                        char *message, size_t message_size);

/// Decodes at scale `scale_num`/8 into `pixels` (RGB, 3 bytes a pixel, `width` * `height` of
/// `bm_jpeg_scaled_size`). Grayscale, YCbCr, RGB, CMYK and YCCK all come out as RGB (Adobe
/// inverted CMYK included). Data that ends early or is corrupt is an error, not grey padding:
/// libjpeg only warns about it, so any warning fails the call.
int bm_jpeg_decode_rgb(bm_jpeg_reader *reader, int scale_num, uint8_t *pixels, size_t capacity,
                       char *message, size_t message_size);

/// Frees the decoder.
void bm_jpeg_close(bm_jpeg_reader *reader);

/// `bm_jpeg_decode_rgb`, and at the same time, on a second thread, the decoded rows encoded as a
/// baseline RGB JPEG at `quality` (as `bm_jpeg_encode`): for images that need no turn and no
/// resize, the encoder follows the decoder row by row, as `djpeg | cjpeg` do. On success
/// `*output` is a malloc'd buffer for `bm_image_free`; on any error nothing is left allocated.
int bm_jpeg_decode_and_encode(bm_jpeg_reader *reader, int scale_num, uint8_t *pixels,
                              size_t capacity, int quality, uint8_t **output,
                              size_t *output_size, char *message, size_t message_size);

/// Encodes `pixels` (`components` bytes a pixel in `color` model) as a JPEG with no metadata
/// segments but JFIF/Adobe, optimized Huffman tables, baseline unless `progressive` is 1.
/// On success `*output` is a malloc'd buffer of `*output_size` bytes for `bm_image_free`.
int bm_jpeg_encode(const uint8_t *pixels, int width, int height, int color, int quality,
                   int progressive, uint8_t **output, size_t *output_size, char *message,
                   size_t message_size);

/// An open PNG decoder over a memory buffer (the buffer must outlive it).
typedef struct bm_png_reader bm_png_reader;

/// Reads the PNG header. Returns NULL on failure, with the reason in `message`.
bm_png_reader *bm_png_open(const uint8_t *data, size_t size, int *width, int *height,
                           char *message, size_t message_size);

/// Decodes to RGB (3 bytes a pixel), compositing any transparency over white.
int bm_png_decode_rgb(bm_png_reader *reader, uint8_t *pixels, size_t capacity, char *message,
                      size_t message_size);

/// Frees the decoder.
void bm_png_close(bm_png_reader *reader);

/// Resamples RGB `source` to `target` by area averaging (every source pixel contributes by the
/// fraction of it that a target pixel covers), for downscaling. Returns BM_IMAGE_ERROR when out
/// of memory.
int bm_resize_rgb(const uint8_t *source, int source_width, int source_height, uint8_t *target,
                  int target_width, int target_height);

/// Writes `source` turned by EXIF `orientation` (1...8) into `target` (same size in bytes; for
/// orientations 5...8 width and height swap).
void bm_orient_rgb(const uint8_t *source, int width, int height, int orientation, uint8_t *target);

/// Frees a buffer this library allocated.
void bm_image_free(void *buffer);

#endif
