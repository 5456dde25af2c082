#include "CFuzzerDriver.h"

/* Declared by libFuzzer's FuzzerInterface.h, which the toolchain does not install. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t));

int bm_fuzz_run(int *argc, char ***argv, bm_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
