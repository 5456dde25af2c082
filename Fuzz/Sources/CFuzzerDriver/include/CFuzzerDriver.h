#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// The function libFuzzer calls with each input.
typedef int (*bm_fuzz_callback)(const uint8_t *data, size_t size);

/// Runs libFuzzer's driver (`LLVMFuzzerRunDriver`, in the runtime `-sanitize=fuzzer` links)
/// with the process's arguments and `callback` as the fuzz target.
int bm_fuzz_run(int *argc, char ***argv, bm_fuzz_callback callback);

#endif
