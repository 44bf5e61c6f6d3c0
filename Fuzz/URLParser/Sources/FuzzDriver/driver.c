// SwiftPM links every executable with `main` aliased to `<Module>_main` (testable executables),
// so libFuzzer's own `main` is never used: this entry point hands control to libFuzzer's driver
// with the Swift test function instead.
#include <stddef.h>
#include <stdint.h>
#include "FuzzDriver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int FuzzURLParser_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
