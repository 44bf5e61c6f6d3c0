#ifndef CURLSCAN_H
#define CURLSCAN_H

#include <stddef.h>
#include <stdint.h>

/// Masks of the first 64 bytes of a URL (bit k is byte k; bits past the end are 0), where the
/// scheme and the authority are.
typedef struct {
    /// Bytes outside `ALPHA / DIGIT / "+" / "-" / "."` in the first 32 bytes; bits 32…63 are all
    /// set, so a scheme ends by byte 32 (a longer one takes the full parser).
    uint64_t notScheme;
    /// Uppercase letters in the first 32 bytes.
    uint64_t upper;
    uint64_t slash;
    uint64_t colon;
    uint64_t at;
} CURLScanHead;

/// Classifies `p[0..<n]` 16 bytes at a time (SSE2 compares and movemask on x86-64; a portable
/// loop elsewhere), for CourierURL's fast path. Reads only `p[0..<n]`.
///
/// `outside` and `question` receive one 16-bit mask per 16-byte block (bit k is byte 16·b + k),
/// 4·(n/64 + 1) blocks, so they read as little-endian 64-bit words of 64 bytes each:
/// - `outside`: bytes outside `pchar / "/" / "?"` (so '#', '[', ']', controls, space, non-ASCII
///   and the other excluded printables), every '%' not followed by two hexadecimal digits, and a
///   sentinel bit at offset n;
/// - `question`: the '?' bytes.
///
/// With a non-null `high` (IRI text: CourierIRI percent-encodes each byte >= 0x80), those bytes
/// are in the query class, so not in `outside`, and `high` receives their mask (as many blocks as
/// `outside`, no sentinel); with null they are outside.
///
/// Returns, with a non-null `high`, whether any byte is >= 0x80 (so that text all ASCII is known
/// without reading `high` back); 0 with null.
///
/// Uses AVX2 (32 bytes at a time) when the CPU has it, else SSE2 (or a portable loop off x86-64).
int curl_scan_classify(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head, uint16_t *high);

/// The same with the SSE2 (or portable) implementation whatever the CPU: for tests comparing the two.
int curl_scan_classify_baseline(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head, uint16_t *high);

#endif
