// liburiparser (Debian liburiparser-dev): a strict RFC 3986 parser in C, the C peer of
// `courier-bench url` and the oracle of CourierURL's tests and fuzzer. CourierURL never links it.
#include <uriparser/Uri.h>
