// SwiftPM links every executable with `main` aliased to `<Module>_main` (testable executables),
// so libFuzzer's own `main` is never used: these entry points hand control to libFuzzer's driver
// with the executable's Swift `LLVMFuzzerTestOneInput`. Each executable defines only its own.
#include <stddef.h>
#include <stdint.h>
#include "FuzzDrivers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

__attribute__((weak)) int FuzzManifest_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

__attribute__((weak)) int FuzzBrokerArguments_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
