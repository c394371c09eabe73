// libFuzzer's driver, for fuzz targets whose main is their own (SwiftPM gives each executable
// a main of its own name, so libFuzzer's main cannot be used): main calls this. Linked in only
// when building with -sanitize=fuzzer (scripts/fuzz).
#ifndef JOLT_CFUZZER_H
#define JOLT_CFUZZER_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
