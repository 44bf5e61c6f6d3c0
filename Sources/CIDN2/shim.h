// libidn2 (Debian libidn2-dev): IDNA2008 with UTS #46 processing, for CourierIRI's host names.
// Only CourierIRI imports it: CourierURL and the static `courier` front never link it (nor the
// libunistring it needs).
#include <idn2.h>
