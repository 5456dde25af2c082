#include <stdio.h>

#include "ImageShared.h"

void bm_copy_message(char *message, size_t message_size, const char *text) {
    if (message == NULL || message_size == 0) return;
    snprintf(message, message_size, "%s", text);
}

size_t bm_image_bytes(int width, int height, int components) {
    if (width <= 0 || height <= 0 || components <= 0) return 0;
    if (width > BM_IMAGE_MAX_SIDE || height > BM_IMAGE_MAX_SIDE) return 0;
    size_t bytes;
    if (__builtin_mul_overflow((size_t)width, (size_t)height, &bytes)) return 0;
    if (__builtin_mul_overflow(bytes, (size_t)components, &bytes)) return 0;
    return bytes;
}
