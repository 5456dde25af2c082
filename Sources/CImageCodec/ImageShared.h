#ifndef BM_IMAGE_SHARED_H
#define BM_IMAGE_SHARED_H

/* What every file of the image codec shares; not part of the public header. */

#include <stddef.h>

#include "CImageCodec.h"

/* Copies `text` into a caller's message buffer (nothing when the buffer is NULL or empty). */
void bm_copy_message(char *message, size_t message_size, const char *text);

/* The byte length of a `width` x `height` image of `components` bytes a pixel, or 0 when a side
 * is not positive, a side exceeds BM_IMAGE_MAX_SIDE, or the product does not fit in a size_t.
 * Every function that touches a caller's pixel buffer compares its stated size with this first. */
size_t bm_image_bytes(int width, int height, int components);

#endif
