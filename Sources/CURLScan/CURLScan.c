// Byte classification for CourierURL's fast path (see include/CURLScan.h).
//
// Why C: Swift 6.3's SIMD comparisons lower to per-lane loops and Swift has no movemask, while
// here one SSE2 compare classifies 16 bytes and _mm_movemask_epi8 turns the lanes into a bitmask.
#include "CURLScan.h"
#include <string.h>

/// The 16-bit blocks are read by Swift as little-endian 64-bit words.
static inline uint16_t le16(uint32_t x) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap16((uint16_t)x);
#else
    return (uint16_t)x;
#endif
}

typedef struct {
    uint32_t outside, question, percent, hex;
    uint32_t notScheme, upper, slash, colon, at;  // only for the head (the first 64 bytes)
} Block;

/// What a block of the head classifies besides the body masks: the scheme masks only in the first
/// 32 bytes (a longer scheme takes the full parser), the authority's delimiters in all 64.
enum { HEAD_NONE = 0, HEAD_ALL = 1, HEAD_DELIMITERS = 2 };

/// Bytes 32…63 count as outside the scheme (and never uppercase), so a scheme ends by byte 32.
static inline void end_scheme_at_32(CURLScanHead *h) {
    h->notScheme |= 0xFFFFFFFF00000000ull;
    h->upper &= 0xFFFFFFFFull;
}

#if defined(__SSE2__)
#include <emmintrin.h>

static inline __m128i eq(__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); }

/// lo <= v <= hi, on signed lanes (bytes >= 0x80 are negative: never inside an ASCII range).
static inline __m128i between(__m128i v, char lo, char hi) {
    return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8((char)(lo - 1))),
                         _mm_cmpgt_epi8(_mm_set1_epi8((char)(hi + 1)), v));
}

static inline uint32_t bits(__m128i m) { return (uint32_t)_mm_movemask_epi8(m); }

static inline Block classify(__m128i v, int head) {
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
    b.percent = bits(eq(v, '%'));
    __m128i digit = between(v, '0', '9');
    b.hex = bits(_mm_or_si128(digit, between(folded, 'a', 'f')));
    if (head) {
        if (head == HEAD_ALL) {
            __m128i scheme = _mm_or_si128(_mm_or_si128(digit, between(folded, 'a', 'z')),
                                          _mm_or_si128(eq(v, '+'), between(v, '-', '.')));
            b.notScheme = bits(scheme) ^ 0xFFFF;
            b.upper = bits(between(v, 'A', 'Z'));
        } else {
            b.notScheme = b.upper = 0;
        }
        b.slash = bits(eq(v, '/'));
        b.colon = bits(eq(v, ':'));
        b.at = bits(eq(v, '@'));
    } else {
        b.notScheme = b.upper = b.slash = b.colon = b.at = 0;
    }
    return b;
}

static inline Block classify_at(const uint8_t *p, int head) {
    return classify(_mm_loadu_si128((const __m128i *)p), head);
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

static inline Block classify_at(const uint8_t *p, int head) {
    Block b = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 16; k++) {
        uint8_t c = p[k], f = c | 0x20;
        uint32_t bit = 1u << k;
        int digit = c >= '0' && c <= '9';
        if (!in_query(c)) b.outside |= bit;
        if (c == '?') b.question |= bit;
        if (c == '%') b.percent |= bit;
        if (digit || (f >= 'a' && f <= 'f')) b.hex |= bit;
        if (head) {
            if (head == HEAD_ALL && !(digit || (f >= 'a' && f <= 'z') || c == '+' || c == '-' || c == '.')) b.notScheme |= bit;
            if (head == HEAD_ALL && c >= 'A' && c <= 'Z') b.upper |= bit;
            if (c == '/') b.slash |= bit;
            if (c == ':') b.colon |= bit;
            if (c == '@') b.at |= bit;
        }
    }
    return b;
}
#endif

/// The block of the last `n - start` (1…15) bytes, in bits 0..<(n - start).
static inline Block classify_tail(const uint8_t *p, size_t n, size_t start, int head) {
    unsigned r = (unsigned)(n - start);
    Block b;
    if (n >= 16) {  // the 16 bytes ending at n, shifted down: no copy
        b = classify_at(p + n - 16, head);
        unsigned shift = 16 - r;
        b.outside >>= shift; b.question >>= shift; b.percent >>= shift; b.hex >>= shift;
        b.notScheme >>= shift; b.upper >>= shift; b.slash >>= shift; b.colon >>= shift; b.at >>= shift;
    } else {
        uint8_t padded[16];
        memset(padded, 0, sizeof padded);
        memcpy(padded, p + start, r);
        b = classify_at(padded, head);
        uint32_t keep = (1u << r) - 1;
        b.outside &= keep; b.question &= keep; b.percent &= keep; b.hex &= keep;
        b.notScheme &= keep; b.upper &= keep; b.slash &= keep; b.colon &= keep; b.at &= keep;
    }
    return b;
}

/// Accumulates block `b` (16·b < 64) into the head masks.
static inline void add_head(CURLScanHead *h, const Block *k, size_t b) {
    unsigned s = (unsigned)(b << 4);
    h->notScheme |= (uint64_t)k->notScheme << s;
    h->upper |= (uint64_t)k->upper << s;
    h->slash |= (uint64_t)k->slash << s;
    h->colon |= (uint64_t)k->colon << s;
    h->at |= (uint64_t)k->at << s;
}

static void classify_sse2(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head) {
    size_t blocks = (n + 15) >> 4, full = n >> 4, total = ((n >> 6) + 1) << 2;
    size_t headBlocks = blocks < 4 ? blocks : 4;
    CURLScanHead h = {0, 0, 0, 0, 0};
    // Escapes are checked one block late, once the next block's hexadecimal digits are known: a
    // '%' is valid when the two bytes after it are hexadecimal digits.
    uint32_t previousOutside = 0, previousPercent = 0, previousHex = 0;
#define CURLSCAN_STORE(b, k)                                                                          \
    do {                                                                                              \
        if ((b) > 0) {                                                                                \
            uint32_t hex = previousHex | ((k).hex << 16);                                             \
            outside[(b) - 1] = le16(previousOutside | (previousPercent & ~((hex >> 1) & (hex >> 2))));        \
        }                                                                                             \
        question[b] = le16((k).question);                                                             \
        previousOutside = (k).outside;                                                                \
        previousPercent = (k).percent;                                                                \
        previousHex = (k).hex;                                                                        \
    } while (0)
    size_t b = 0;
    for (; b < headBlocks; b++) {  // the first 64 bytes: all masks
        int kind = b < 2 ? HEAD_ALL : HEAD_DELIMITERS;
        Block k = b < full ? classify_at(p + (b << 4), kind) : classify_tail(p, n, b << 4, kind);
        add_head(&h, &k, b);
        CURLSCAN_STORE(b, k);
    }
    for (; b < full; b++) {  // whole blocks
        Block k = classify_at(p + (b << 4), 0);
        CURLSCAN_STORE(b, k);
    }
    if (b < blocks) {  // the last 1…15 bytes
        Block k = classify_tail(p, n, b << 4, 0);
        CURLSCAN_STORE(b, k);
        b++;
    }
#undef CURLSCAN_STORE
    if (blocks > 0) {  // no digits follow the last block
        outside[blocks - 1] = le16(previousOutside | (previousPercent & ~((previousHex >> 1) & (previousHex >> 2))));
    }
    for (b = blocks; b < total; b++) {
        outside[b] = 0;
        question[b] = 0;
    }
    outside[n >> 4] |= le16(1u << (n & 15));  // the sentinel
    end_scheme_at_32(&h);
    *head = h;
}

#if defined(__x86_64__) && defined(__clang__)
// The same classification 32 bytes at a time, for CPUs with AVX2 (chosen at run time, so the
// binary still runs on any x86-64).
#include <immintrin.h>
#define CURLSCAN_AVX2 __attribute__((target("avx2")))

CURLSCAN_AVX2 static inline __m256i eq32(__m256i v, char c) { return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)); }

CURLSCAN_AVX2 static inline __m256i between32(__m256i v, char lo, char hi) {
    return _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8((char)(lo - 1))),
                            _mm256_cmpgt_epi8(_mm256_set1_epi8((char)(hi + 1)), v));
}

CURLSCAN_AVX2 static inline uint32_t bits32(__m256i m) { return (uint32_t)_mm256_movemask_epi8(m); }

/// The query class and the hexadecimal digits in one table lookup per nibble (`vpshufb`), instead
/// of a dozen range compares: a byte's class is `low[lo nibble] & high[hi nibble]`. Bits 0…5 are
/// one per ASCII row 0x2_…0x7_ (the low nibbles that row allows in `pchar / "/" / "?"`), so a
/// byte is in the query class when any of them is set; bit 6 is the digits (row 3), bit 7 the
/// letters a–f/A–F (rows 4 and 6). Rows 0, 1 and 8…F (controls, non-ASCII) have no bits. The
/// tables are checked byte for byte against the SSE2 compares by FastPathTests.
CURLSCAN_AVX2 static inline __m256i class_bits32(__m256i v) {
    const __m256i low = _mm256_setr_epi8(
        0x6E, (char)0xFF, (char)0xFE, (char)0xFE, (char)0xFF, (char)0xFF, (char)0xFF, 0x7F, 0x7F, 0x7F, 0x3F, 0x17, 0x15, 0x17, 0x35, 0x1F,
        0x6E, (char)0xFF, (char)0xFE, (char)0xFE, (char)0xFF, (char)0xFF, (char)0xFF, 0x7F, 0x7F, 0x7F, 0x3F, 0x17, 0x15, 0x17, 0x35, 0x1F);
    const __m256i high = _mm256_setr_epi8(
        0, 0, 0x01, 0x42, (char)0x84, 0x08, (char)0x90, 0x20, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0x01, 0x42, (char)0x84, 0x08, (char)0x90, 0x20, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    __m256i lo = _mm256_shuffle_epi8(low, _mm256_and_si256(v, nibble));
    __m256i hi = _mm256_shuffle_epi8(high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    return _mm256_and_si256(lo, hi);
}

CURLSCAN_AVX2 static inline Block classify32(__m256i v, int head) {
    Block b;
    const __m256i zero = _mm256_setzero_si256();
    __m256i classes = class_bits32(v);
    b.outside = bits32(_mm256_cmpeq_epi8(_mm256_and_si256(classes, _mm256_set1_epi8(0x3F)), zero));
    b.hex = ~bits32(_mm256_cmpeq_epi8(_mm256_and_si256(classes, _mm256_set1_epi8((char)0xC0)), zero));
    b.question = bits32(eq32(v, '?'));
    b.percent = bits32(eq32(v, '%'));
    if (head) {
        if (head == HEAD_ALL) {
            __m256i folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
            __m256i scheme = _mm256_or_si256(_mm256_or_si256(between32(v, '0', '9'), between32(folded, 'a', 'z')),
                                             _mm256_or_si256(eq32(v, '+'), between32(v, '-', '.')));
            b.notScheme = ~bits32(scheme);
            b.upper = bits32(between32(v, 'A', 'Z'));
        } else {
            b.notScheme = b.upper = 0;
        }
        b.slash = bits32(eq32(v, '/'));
        b.colon = bits32(eq32(v, ':'));
        b.at = bits32(eq32(v, '@'));
    } else {
        b.notScheme = b.upper = b.slash = b.colon = b.at = 0;
    }
    return b;
}

CURLSCAN_AVX2 static inline Block classify32_at(const uint8_t *p, int head) {
    return classify32(_mm256_loadu_si256((const __m256i *)p), head);
}

/// The block of the last `n - start` (1…31) bytes, in bits 0..<(n - start).
CURLSCAN_AVX2 static inline Block classify32_tail(const uint8_t *p, size_t n, size_t start, int head) {
    unsigned r = (unsigned)(n - start);
    Block b;
    if (n >= 32) {
        // The 32-byte (AVX2) twin of the 16-byte tail above: C has no generic over vector width,
        // and one function per width keeps each loop branch-free (deliberate).
        b = classify32_at(p + n - 32, head);
        unsigned shift = 32 - r;
        b.outside >>= shift; b.question >>= shift; b.percent >>= shift; b.hex >>= shift;
        b.notScheme >>= shift; b.upper >>= shift; b.slash >>= shift; b.colon >>= shift; b.at >>= shift;
    } else {
        uint8_t padded[32];
        memset(padded, 0, sizeof padded);
        memcpy(padded, p + start, r);
        b = classify32_at(padded, head);
        uint32_t keep = (1u << r) - 1;
        b.outside &= keep; b.question &= keep; b.percent &= keep; b.hex &= keep;
        b.notScheme &= keep; b.upper &= keep; b.slash &= keep; b.colon &= keep; b.at &= keep;
    }
    return b;
}

CURLSCAN_AVX2 static void classify_avx2(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head) {
    size_t blocks = (n + 31) >> 5, full = n >> 5, total = ((n >> 6) + 1) << 2;  // 32-byte blocks; 16-bit slots
    size_t headBlocks = blocks < 2 ? blocks : 2;
    CURLScanHead h = {0, 0, 0, 0, 0};
    uint32_t previousOutside = 0, previousPercent = 0, previousHex = 0;
#define CURLSCAN_STORE32(b, k)                                                                        \
    do {                                                                                              \
        if ((b) > 0) {                                                                                \
            uint64_t hex = previousHex | ((uint64_t)(k).hex << 32);                                   \
            uint32_t o = previousOutside | (previousPercent & ~(uint32_t)((hex >> 1) & (hex >> 2)));  \
            memcpy(outside + 2 * ((b) - 1), &o, 4);                                                   \
        }                                                                                             \
        memcpy(question + 2 * (b), &(k).question, 4);                                                 \
        previousOutside = (k).outside;                                                                \
        previousPercent = (k).percent;                                                                \
        previousHex = (k).hex;                                                                        \
    } while (0)
    size_t b = 0;
    for (; b < headBlocks; b++) {
        int kind = b == 0 ? HEAD_ALL : HEAD_DELIMITERS;
        Block k = b < full ? classify32_at(p + (b << 5), kind) : classify32_tail(p, n, b << 5, kind);
        unsigned s = (unsigned)(b << 5);
        h.notScheme |= (uint64_t)k.notScheme << s;
        h.upper |= (uint64_t)k.upper << s;
        h.slash |= (uint64_t)k.slash << s;
        h.colon |= (uint64_t)k.colon << s;
        h.at |= (uint64_t)k.at << s;
        CURLSCAN_STORE32(b, k);
    }
    for (; b < full; b++) {
        Block k = classify32_at(p + (b << 5), 0);
        CURLSCAN_STORE32(b, k);
    }
    if (b < blocks) {
        Block k = classify32_tail(p, n, b << 5, 0);
        CURLSCAN_STORE32(b, k);
        b++;
    }
#undef CURLSCAN_STORE32
    if (blocks > 0) {
        uint32_t o = previousOutside | (previousPercent & ~((previousHex >> 1) & (previousHex >> 2)));
        memcpy(outside + 2 * (blocks - 1), &o, 4);
    }
    for (size_t slot = 2 * blocks; slot < total; slot++) {
        outside[slot] = 0;
        question[slot] = 0;
    }
    outside[n >> 4] |= (uint16_t)(1u << (n & 15));  // the sentinel
    end_scheme_at_32(&h);
    *head = h;
}
#endif

void curl_scan_classify(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head) {
#if defined(__x86_64__) && defined(__clang__)
    if (__builtin_cpu_supports("avx2")) {
        classify_avx2(p, n, outside, question, head);
        return;
    }
#endif
    classify_sse2(p, n, outside, question, head);
}

void curl_scan_classify_baseline(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head) {
    classify_sse2(p, n, outside, question, head);
}
