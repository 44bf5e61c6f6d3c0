#ifndef CURLSCAN_H
#define CURLSCAN_H

#include <stddef.h>
#include <stdint.h>

/// Bitmasks of one 64-byte chunk of a URL (bit k is byte 64·w + k), made by
/// curl_scan_classify for CourierURL's fast path.
typedef struct {
    /// Bytes outside `pchar / "/" / "?"` (RFC 3986: so '#', '[', ']', controls, space, non-ASCII,
    /// and the other excluded printables), every '%' not followed by two hexadecimal digits, and
    /// one sentinel bit at the end of the input.
    uint64_t outside;
    uint64_t question;
    uint64_t slash;
    uint64_t colon;
    uint64_t at;
    /// Scratch for the escape check (hexadecimal digits).
    uint64_t hex;
} CURLScanWord;

/// Classifies `p[0..<n]` into `words[0 ... n/64]` (n/64 + 1 words; the last holds the sentinel),
/// 16 bytes at a time (SSE2 compares and movemask on x86-64; a portable loop elsewhere). Reads
/// only `p[0..<n]`. `scheme` receives two masks of the first 64 bytes: [0] bytes outside
/// `ALPHA / DIGIT / "+" / "-" / "."`, [1] uppercase letters.
void curl_scan_classify(const uint8_t *p, size_t n, CURLScanWord *words, uint64_t scheme[2]);

#endif
