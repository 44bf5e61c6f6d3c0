// Byte classification for CourierURL's fast path (see include/CURLScan.h).
//
// Why C: Swift 6.3's SIMD comparisons lower to per-lane loops and it has no movemask, while here
// one SSE2 compare classifies 16 bytes and _mm_movemask_epi8 turns the lanes into a bitmask.
#include "CURLScan.h"
#include <string.h>

typedef struct {
    uint32_t outside, question, slash, colon, at, percent, hex, notScheme, upper;
} Block;

#if defined(__SSE2__)
#include <emmintrin.h>

static inline __m128i eq(__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); }

/// lo <= v <= hi, signed lanes (bytes >= 0x80 are negative: never inside an ASCII range).
static inline __m128i between(__m128i v, char lo, char hi) {
    return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8((char)(lo - 1))),
                         _mm_cmpgt_epi8(_mm_set1_epi8((char)(hi + 1)), v));
}

static inline uint32_t bits(__m128i m) { return (uint32_t)_mm_movemask_epi8(m); }

static inline Block classify(__m128i v, int withScheme) {
    Block b;
    __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i printable = between(v, 0x21, 0x7E);
    __m128i excluded = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8((char)0xFE)), _mm_set1_epi8(0x22)),   // " #
                     _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8((char)0xFD)), _mm_set1_epi8(0x3C))),  // < >
        _mm_or_si128(between(folded, 0x7B, 0x7D),                                                         // [ \ ] { | }
                     _mm_or_si128(eq(v, 0x5E), eq(v, 0x60))));                                           // ^ `
    b.outside = bits(_mm_andnot_si128(excluded, printable)) ^ 0xFFFF;
    b.question = bits(eq(v, '?'));
    b.slash = bits(eq(v, '/'));
    b.colon = bits(eq(v, ':'));
    b.at = bits(eq(v, '@'));
    b.percent = bits(eq(v, '%'));
    __m128i digit = between(v, '0', '9');
    b.hex = bits(_mm_or_si128(digit, between(folded, 'a', 'f')));
    if (withScheme) {
        __m128i scheme = _mm_or_si128(_mm_or_si128(digit, between(folded, 'a', 'z')),
                                      _mm_or_si128(eq(v, '+'), between(v, '-', '.')));
        b.notScheme = bits(scheme) ^ 0xFFFF;
        b.upper = bits(between(v, 'A', 'Z'));
    } else {
        b.notScheme = 0;
        b.upper = 0;
    }
    return b;
}

static inline Block classify_at(const uint8_t *p, int withScheme) {
    return classify(_mm_loadu_si128((const __m128i *)p), withScheme);
}
#else
static inline int in_query(uint8_t c) {
    if (c < 0x21 || c > 0x7E) return 0;
    switch (c) {
    case '"': case '#': case '<': case '>': case '[': case '\\': case ']': case '^': case '`':
    case '{': case '|': case '}': return 0;
    default: return 1;
    }
}

static inline Block classify_at(const uint8_t *p, int withScheme) {
    Block b = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 16; k++) {
        uint8_t c = p[k], f = c | 0x20;
        uint32_t bit = 1u << k;
        if (!in_query(c)) b.outside |= bit;
        if (c == '?') b.question |= bit;
        if (c == '/') b.slash |= bit;
        if (c == ':') b.colon |= bit;
        if (c == '@') b.at |= bit;
        if (c == '%') b.percent |= bit;
        int digit = c >= '0' && c <= '9';
        if (digit || (f >= 'a' && f <= 'f')) b.hex |= bit;
        if (withScheme) {
            if (!(digit || (f >= 'a' && f <= 'z') || c == '+' || c == '-' || c == '.')) b.notScheme |= bit;
            if (c >= 'A' && c <= 'Z') b.upper |= bit;
        }
    }
    return b;
}
#endif

/// The block of the `r` (1…15) bytes at `p + start`, the last ones of the input, in bits 0..<r.
static inline Block classify_tail(const uint8_t *p, size_t n, size_t start, int withScheme) {
    size_t r = n - start;
    Block b;
    if (n >= 16) {
        b = classify_at(p + n - 16, withScheme);
        unsigned shift = (unsigned)(16 - r);
        b.outside >>= shift; b.question >>= shift; b.slash >>= shift; b.colon >>= shift; b.at >>= shift;
        b.percent >>= shift; b.hex >>= shift; b.notScheme >>= shift; b.upper >>= shift;
    } else {
        uint8_t padded[16];
        memset(padded, 0, sizeof padded);
        memcpy(padded, p + start, r);
        b = classify_at(padded, withScheme);
        uint32_t keep = (1u << r) - 1;
        b.outside &= keep; b.question &= keep; b.slash &= keep; b.colon &= keep; b.at &= keep;
        b.percent &= keep; b.hex &= keep; b.notScheme &= keep; b.upper &= keep;
    }
    return b;
}

void curl_scan_classify(const uint8_t *p, size_t n, CURLScanWord *words, uint64_t scheme[2]) {
    size_t last = n >> 6;
    uint64_t previousPercent = 0;  // the previous word's '%' bits
    for (size_t w = 0; w <= last; w++) {
        CURLScanWord word = {0, 0, 0, 0, 0, 0};
        uint64_t wordPercent = 0, notScheme = 0, upper = 0;
        for (unsigned k = 0; k < 4; k++) {
            size_t pos = (w << 6) + 16 * k;
            if (pos >= n) break;
            Block b = pos + 16 <= n ? classify_at(p + pos, w == 0) : classify_tail(p, n, pos, w == 0);
            unsigned s = 16 * k;
            word.outside |= (uint64_t)b.outside << s;
            word.question |= (uint64_t)b.question << s;
            word.slash |= (uint64_t)b.slash << s;
            word.colon |= (uint64_t)b.colon << s;
            word.at |= (uint64_t)b.at << s;
            word.hex |= (uint64_t)b.hex << s;
            wordPercent |= (uint64_t)b.percent << s;
            notScheme |= (uint64_t)b.notScheme << s;
            upper |= (uint64_t)b.upper << s;
        }
        if (w == 0) {
            scheme[0] = notScheme;
            scheme[1] = upper;
        }
        words[w] = word;
        // A '%' is valid when the next two bytes are hexadecimal digits; the previous word's
        // escapes can be checked now that this word's digits are known.
        if (w > 0) {
            uint64_t h = words[w - 1].hex, next = word.hex;
            uint64_t h1 = (h >> 1) | (next << 63), h2 = (h >> 2) | (next << 62);
            words[w - 1].outside |= previousPercent & ~(h1 & h2);
        }
        previousPercent = wordPercent;
    }
    // The last word: no digits follow it.
    uint64_t h = words[last].hex;
    words[last].outside |= previousPercent & ~((h >> 1) & (h >> 2));
    words[last].outside |= (uint64_t)1 << (n & 63);
}
