// libmagic (Debian libmagic-dev): content sniffing for CourierManifest's ContentSniffer.
#include <magic.h>
