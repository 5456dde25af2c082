#include <stdlib.h>
#include <string.h>

#include "JPEGShared.h"

static void bm_jpeg_error_exit(j_common_ptr cinfo) {
    bm_jpeg_error *error = (bm_jpeg_error *)cinfo->err;
    error->base.format_message(cinfo, error->last_message);
    longjmp(error->jump, 1);
}

/* Warnings are kept (a truncated file is only a warning) but never printed. While pixels are
 * decoded the first one ends the call: the decode fails on any warning anyway, and stopping at
 * once is what keeps a file of repeated progressive scans (each one only a warning) from costing
 * a full pass per scan. Measured with djpeg on a 116 KB file holding 1,000 repeats of a
 * refinement scan over a 4000 x 4000 image: 88 s to the end, 8 s to the 100-scan limit. */
static void bm_jpeg_emit_message(j_common_ptr cinfo, int level) {
    bm_jpeg_error *error = (bm_jpeg_error *)cinfo->err;
    if (level < 0) {
        if (error->base.num_warnings == 0) {
            error->base.format_message(cinfo, error->last_message);
        }
        error->base.num_warnings++;
        if (error->warnings_fatal) longjmp(error->jump, 1);
    }
}

static void bm_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

void bm_jpeg_error_init(bm_jpeg_error *error) {
    jpeg_std_error(&error->base);
    error->base.error_exit = bm_jpeg_error_exit;
    error->base.emit_message = bm_jpeg_emit_message;
    error->base.output_message = bm_jpeg_output_message;
    error->last_message[0] = 0;
    error->warnings_fatal = 0;
}


/* EXIF orientation from the APP1 segments libjpeg saved; 1 when absent or malformed. */
static int bm_exif_orientation(j_decompress_ptr cinfo) {
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1 || marker->data_length < 14) continue;
        const uint8_t *data = marker->data;
        if (memcmp(data, "Exif\0\0", 6) != 0) continue;
        const uint8_t *tiff = data + 6;
        size_t length = marker->data_length - 6;
        int little = 0;
        if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
        else if (!(tiff[0] == 'M' && tiff[1] == 'M')) continue;
#define BM_U16(p) (little ? (uint32_t)((p)[0] | ((p)[1] << 8)) : (uint32_t)(((p)[0] << 8) | (p)[1]))
#define BM_U32(p)                                                                               \
    (little ? ((uint32_t)(p)[0] | ((uint32_t)(p)[1] << 8) | ((uint32_t)(p)[2] << 16) |            \
               ((uint32_t)(p)[3] << 24))                                                        \
            : (((uint32_t)(p)[0] << 24) | ((uint32_t)(p)[1] << 16) | ((uint32_t)(p)[2] << 8) |    \
               (uint32_t)(p)[3]))
        if (BM_U16(tiff + 2) != 42) continue;
        uint32_t ifd = BM_U32(tiff + 4);
        if (ifd > length || length - ifd < 2) continue;
        uint32_t count = BM_U16(tiff + ifd);
        for (uint32_t index = 0; index < count; index++) {
            size_t entry = (size_t)ifd + 2 + (size_t)index * 12;
            if (entry + 12 > length) break;
            if (BM_U16(tiff + entry) == 0x0112 && BM_U16(tiff + entry + 2) == 3) {
                uint32_t value = BM_U16(tiff + entry + 8);
                return (value >= 1 && value <= 8) ? (int)value : 1;
            }
        }
#undef BM_U16
#undef BM_U32
    }
    return 1;
}

/* libjpeg calls this as it consumes input, at least once a scan (djpeg's -maxscans check). */
static void bm_jpeg_count_scans(j_common_ptr cinfo) {
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (dinfo->input_scan_number <= BM_JPEG_MAX_SCANS) return;
    bm_jpeg_error *error = (bm_jpeg_error *)cinfo->err;
    snprintf(error->last_message, sizeof error->last_message,
             "JPEG has more than %d scans (scan %d refused)", BM_JPEG_MAX_SCANS,
             dinfo->input_scan_number);
    longjmp(error->jump, 1);
}

bm_jpeg_reader *bm_jpeg_open(const uint8_t *data, size_t size, bm_jpeg_info *info, char *message,
                             size_t message_size) {
    bm_jpeg_reader *reader = calloc(1, sizeof(bm_jpeg_reader));
    if (reader == NULL) {
        bm_copy_message(message, message_size, "out of memory");
        return NULL;
    }
    bm_jpeg_error_init(&reader->error);
    reader->cinfo.err = &reader->error.base;
    if (setjmp(reader->error.jump)) {
        bm_copy_message(message, message_size, reader->error.last_message);
        jpeg_destroy_decompress(&reader->cinfo);
        free(reader);
        return NULL;
    }
    jpeg_create_decompress(&reader->cinfo);
    reader->progress.progress_monitor = bm_jpeg_count_scans;
    reader->cinfo.progress = &reader->progress;
    /* jpeg_mem_src itself refuses a NULL or empty buffer (JERR_INPUT_EMPTY). */
    jpeg_mem_src(&reader->cinfo, data, (unsigned long)size);
    jpeg_save_markers(&reader->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&reader->cinfo, TRUE);
    info->width = (int)reader->cinfo.image_width;
    info->height = (int)reader->cinfo.image_height;
    info->components = reader->cinfo.num_components;
    info->progressive = reader->cinfo.progressive_mode ? 1 : 0;
    info->orientation = bm_exif_orientation(&reader->cinfo);
    return reader;
}

static void bm_jpeg_set_scale(j_decompress_ptr cinfo, int scale_num) {
    cinfo->scale_num = (unsigned int)(scale_num < 1 ? 1 : scale_num > 8 ? 8 : scale_num);
    cinfo->scale_denom = 8;
    /* CMYK and YCCK cannot be converted to RGB by libjpeg: take CMYK and convert below. */
    if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
        cinfo->out_color_space = JCS_CMYK;
    } else {
        cinfo->out_color_space = JCS_RGB;
    }
    cinfo->dct_method = JDCT_ISLOW;
}

int bm_jpeg_scaled_size(bm_jpeg_reader *reader, int scale_num, int *width, int *height,
                        char *message, size_t message_size) {
    if (setjmp(reader->error.jump)) {
        bm_copy_message(message, message_size, reader->error.last_message);
        return BM_IMAGE_ERROR;
    }
    bm_jpeg_set_scale(&reader->cinfo, scale_num);
    jpeg_calc_output_dimensions(&reader->cinfo);
    *width = (int)reader->cinfo.output_width;
    *height = (int)reader->cinfo.output_height;
    return BM_IMAGE_OK;
}

int bm_jpeg_decode_rows(bm_jpeg_reader *reader, int scale_num, uint8_t *pixels, size_t capacity,
                        bm_rows_done rows_done, void *context, char *message,
                        size_t message_size) {
    j_decompress_ptr cinfo = &reader->cinfo;
    /* volatile: changed between setjmp and a possible longjmp. */
    uint8_t *volatile cmyk_row = NULL;
    if (setjmp(reader->error.jump)) {
        bm_copy_message(message, message_size, reader->error.last_message);
        free(cmyk_row);
        return BM_IMAGE_ERROR;
    }
    /* A warning while reading the headers already fails the decode: say so before any work. */
    if (reader->error.base.num_warnings > 0) {
        bm_copy_message(message, message_size, reader->error.last_message);
        return BM_IMAGE_ERROR;
    }
    reader->error.warnings_fatal = 1;
    bm_jpeg_set_scale(cinfo, scale_num);
    /* The output size is known before jpeg_start_decompress, which (for a progressive file)
     * reads every scan: check the caller's buffer before doing any of that work. */
    jpeg_calc_output_dimensions(cinfo);
    size_t needed = bm_image_bytes((int)cinfo->output_width, (int)cinfo->output_height, 3);
    if (pixels == NULL || needed == 0 || capacity < needed) {
        bm_copy_message(message, message_size, "pixel buffer too small for the decoded image");
        return BM_IMAGE_ERROR;
    }
    jpeg_start_decompress(cinfo);
    size_t width = cinfo->output_width;
    int is_cmyk = cinfo->out_color_space == JCS_CMYK;
    if (is_cmyk) {
        cmyk_row = malloc(width * 4);
        if (cmyk_row == NULL) {
            jpeg_abort_decompress(cinfo);
            bm_copy_message(message, message_size, "out of memory");
            return BM_IMAGE_ERROR;
        }
    }
    /* Photoshop writes CMYK inverted and marks it with an Adobe segment. */
    int inverted = cinfo->saw_Adobe_marker;
    while (cinfo->output_scanline < cinfo->output_height) {
        uint8_t *row = pixels + (size_t)cinfo->output_scanline * width * 3;
        if (rows_done != NULL && cinfo->output_scanline % 16 == 0 && cinfo->output_scanline > 0) {
            rows_done(context, (int)cinfo->output_scanline);
        }
        if (!is_cmyk) {
            JSAMPROW rows[1] = {row};
            jpeg_read_scanlines(cinfo, rows, 1);
            continue;
        }
        JSAMPROW rows[1] = {cmyk_row};
        jpeg_read_scanlines(cinfo, rows, 1);
        for (size_t x = 0; x < width; x++) {
            unsigned c = cmyk_row[x * 4], m = cmyk_row[x * 4 + 1], y = cmyk_row[x * 4 + 2],
                     k = cmyk_row[x * 4 + 3];
            if (!inverted) {
                c = 255 - c;
                m = 255 - m;
                y = 255 - y;
                k = 255 - k;
            }
            row[x * 3] = (uint8_t)((c * k + 127) / 255);
            row[x * 3 + 1] = (uint8_t)((m * k + 127) / 255);
            row[x * 3 + 2] = (uint8_t)((y * k + 127) / 255);
        }
    }
    if (rows_done != NULL) rows_done(context, (int)cinfo->output_height);
    jpeg_finish_decompress(cinfo);
    free(cmyk_row);
    cmyk_row = NULL;
    if (reader->error.base.num_warnings > 0) {
        bm_copy_message(message, message_size, reader->error.last_message);
        return BM_IMAGE_ERROR;
    }
    return BM_IMAGE_OK;
}

int bm_jpeg_decode_rgb(bm_jpeg_reader *reader, int scale_num, uint8_t *pixels, size_t capacity,
                       char *message, size_t message_size) {
    return bm_jpeg_decode_rows(reader, scale_num, pixels, capacity, NULL, NULL, message,
                               message_size);
}

void bm_jpeg_close(bm_jpeg_reader *reader) {
    if (reader == NULL) return;
    jpeg_destroy_decompress(&reader->cinfo);
    free(reader);
}

