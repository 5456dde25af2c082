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
    /// The input is unusable (corrupt data, or a buffer smaller than its stated image): see `message`.
    BM_IMAGE_ERROR = 1,
    /// Memory for a work buffer could not be had.
    BM_IMAGE_OUT_OF_MEMORY = 2,
};

/*
 * Every function that reads or writes a caller's pixel buffer takes that buffer's length in bytes
 * and checks it against the image's width, height and bytes a pixel (in size_t arithmetic,
 * overflow checked) before touching a byte; a buffer that is too small is BM_IMAGE_ERROR.
 */

enum {
    /// The longest image side these functions accept (JPEG's own limit is 65,535; libpng's
    /// default user limit is 1,000,000). Keeps every index and weight table in int range.
    BM_IMAGE_MAX_SIDE = 1 << 20,
    /// Decoding refuses a JPEG with more scans than this, as soon as scan 101 starts.
    ///
    /// A progressive JPEG may carry any number of scans and libjpeg processes every one of them
    /// (a scan that repeats an earlier one is only a warning), so a small file can make the
    /// decoder walk its whole coefficient buffer thousands of times. libjpeg-turbo has no
    /// built-in limit outside its tools: `djpeg -maxscans` and TurboJPEG's TJPARAM_SCANLIMIT
    /// both check `input_scan_number` from a progress monitor, as `bm_jpeg_open` sets up here.
    /// 100 is the limit libjpeg-turbo's own decompression fuzzer sets for lossy images (its
    /// `tjbench -limitscans` uses 500): ten times the 10 scans of libjpeg's default progression
    /// for colour images (6 for greyscale), while still bounding the work of a hostile file.
    BM_JPEG_MAX_SCANS = 100,
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
/// libjpeg only warns about it, so any warning (one read with the headers included) ends the
/// call at once. `capacity` is the length of `pixels` in bytes, checked before decoding starts.
/// A file with more than BM_JPEG_MAX_SCANS scans fails as soon as the next scan starts.
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

/// Encodes `pixels` (`pixels_size` bytes holding `width` * `height` pixels of `components`
/// bytes in `color` model) as a JPEG with no metadata segments but JFIF/Adobe, optimized
/// Huffman tables, baseline unless `progressive` is 1. On success `*output` is a malloc'd buffer
/// of `*output_size` bytes for `bm_image_free`.
int bm_jpeg_encode(const uint8_t *pixels, size_t pixels_size, int width, int height, int color,
                   int quality, int progressive, uint8_t **output, size_t *output_size,
                   char *message, size_t message_size);

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

/// Resamples RGB `source` (`source_size` bytes) to `target` (`target_capacity` bytes) by area
/// averaging (every source pixel contributes by the fraction of it that a target pixel covers),
/// for downscaling. BM_IMAGE_ERROR for a side out of range or a buffer too small,
/// BM_IMAGE_OUT_OF_MEMORY when the weight tables cannot be allocated.
int bm_resize_rgb(const uint8_t *source, size_t source_size, int source_width,
                  int source_height, uint8_t *target, size_t target_capacity, int target_width,
                  int target_height, char *message, size_t message_size);

/// Writes RGB `source` (`source_size` bytes) turned by EXIF `orientation` (1...8) into `target`
/// (`target_capacity` bytes; for orientations 5...8 width and height swap). BM_IMAGE_ERROR for
/// an orientation out of range or a buffer too small.
int bm_orient_rgb(const uint8_t *source, size_t source_size, int width, int height,
                  int orientation, uint8_t *target, size_t target_capacity, char *message,
                  size_t message_size);

/// Frees a buffer this library allocated.
void bm_image_free(void *buffer);

#endif
