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
    uint32_t high;  // bytes >= 0x80 (the sign bits, one movemask)
    uint32_t notScheme, upper, slash, colon, at;  // only for the head (the first 64 bytes)
} Block;

/// `b` cut to the last `r` of the `width` bytes it was classified from (the bytes ending at the
/// input's end), moved down to bits 0..<r.
static inline Block shifted_tail(Block b, unsigned width, unsigned r) {
    unsigned s = width - r;
    b.outside >>= s; b.question >>= s; b.percent >>= s; b.hex >>= s; b.high >>= s;
    b.notScheme >>= s; b.upper >>= s; b.slash >>= s; b.colon >>= s; b.at >>= s;
    return b;
}

/// `b` cut to its first `r` bytes (classified from a zero-padded copy of them).
static inline Block padded_tail(Block b, unsigned r) {
    uint32_t keep = (1u << r) - 1;
    b.outside &= keep; b.question &= keep; b.percent &= keep; b.hex &= keep; b.high &= keep;
    b.notScheme &= keep; b.upper &= keep; b.slash &= keep; b.colon &= keep; b.at &= keep;
    return b;
}

/// In IRI mode (a non-null `high` mask), bytes >= 0x80 are in the query class: cleared from
/// `outside` (a '%' before one stays a bad escape: the hexadecimal digits are ASCII).
static inline void take_non_ascii(Block *b, const uint16_t *high) {
    if (high) b->outside &= ~b->high;
}

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
    Block b = {0};  // the head masks stay 0 when not asked for
    __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i printable = between(v, 0x21, 0x7E);
    __m128i excluded = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8((char)0xFE)), _mm_set1_epi8(0x22)),   // " #
                     _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8((char)0xFD)), _mm_set1_epi8(0x3C))),  // < >
        _mm_or_si128(between(folded, 0x7B, 0x7D),                                                         // [ \ ] { | }
                     _mm_or_si128(eq(v, 0x5E), eq(v, 0x60))));                                           // ^ `
    b.outside = bits(_mm_andnot_si128(excluded, printable)) ^ 0xFFFF;
    b.high = bits(v);
    b.question = bits(eq(v, '?'));
    b.percent = bits(eq(v, '%'));
    __m128i digit = between(v, '0', '9');
    b.hex = bits(_mm_or_si128(digit, between(folded, 'a', 'f')));
    if (head == HEAD_ALL) {
        __m128i scheme = _mm_or_si128(_mm_or_si128(digit, between(folded, 'a', 'z')),
                                      _mm_or_si128(eq(v, '+'), between(v, '-', '.')));
        b.notScheme = bits(scheme) ^ 0xFFFF;
        b.upper = bits(between(v, 'A', 'Z'));
    }
    if (head != HEAD_NONE) {
        b.slash = bits(eq(v, '/'));
        b.colon = bits(eq(v, ':'));
        b.at = bits(eq(v, '@'));
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
    Block b = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 16; k++) {
        uint8_t c = p[k], f = c | 0x20;
        uint32_t bit = 1u << k;
        int digit = c >= '0' && c <= '9';
        if (!in_query(c)) b.outside |= bit;
        if (c >= 0x80) b.high |= bit;
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
    if (n >= 16) return shifted_tail(classify_at(p + n - 16, head), 16, r);  // no copy
    uint8_t padded[16] = {0};
    memcpy(padded, p + start, r);
    return padded_tail(classify_at(padded, head), r);
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

static int classify_sse2(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head, uint16_t *high) {
    uint32_t nonASCII = 0;
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
        if (high) {                                                                                   \
            high[b] = le16((k).high);                                                                 \
            nonASCII |= (k).high;                                                                     \
        }                                                                                             \
        previousOutside = (k).outside;                                                                \
        previousPercent = (k).percent;                                                                \
        previousHex = (k).hex;                                                                        \
    } while (0)
    size_t b = 0;
    for (; b < headBlocks; b++) {  // the first 64 bytes: all masks
        int kind = b < 2 ? HEAD_ALL : HEAD_DELIMITERS;
        Block k = b < full ? classify_at(p + (b << 4), kind) : classify_tail(p, n, b << 4, kind);
        take_non_ascii(&k, high);
        add_head(&h, &k, b);
        CURLSCAN_STORE(b, k);
    }
    for (; b < full; b++) {  // whole blocks
        Block k = classify_at(p + (b << 4), 0);
        take_non_ascii(&k, high);
        CURLSCAN_STORE(b, k);
    }
    if (b < blocks) {  // the last 1…15 bytes
        Block k = classify_tail(p, n, b << 4, 0);
        take_non_ascii(&k, high);
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
        if (high) high[b] = 0;
    }
    outside[n >> 4] |= le16(1u << (n & 15));  // the sentinel
    end_scheme_at_32(&h);
    *head = h;
    return nonASCII != 0;
}

#if defined(__x86_64__) && defined(__clang__)
// The same classification 32 bytes at a time, for CPUs with AVX2 (chosen at run time, so the
// binary still runs on any x86-64).
#include <immintrin.h>
#define CURLSCAN_AVX2 __attribute__((target("avx2")))

CURLSCAN_AVX2 static inline __m256i eq32(__m256i v, char c) { return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)); }

CURLSCAN_AVX2 static inline uint32_t bits32(__m256i m) { return (uint32_t)_mm256_movemask_epi8(m); }

/// A byte's class in one table lookup per nibble (`vpshufb`) instead of a dozen range compares:
/// `low[lo nibble] & high[hi nibble]`, each bit of the tables one set of bytes. Rows 0, 1 and
/// 8…F (controls, non-ASCII) have no bits in any table. The tables are checked byte for byte
/// against the SSE2 compares by ByteClassificationTests and FastPathTests.
typedef struct {
    __m256i lo, hi;  // each byte's low and high nibble, as vpshufb indices
} Nibbles;

CURLSCAN_AVX2 static inline Nibbles nibbles32(__m256i v) {
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    Nibbles n = {_mm256_and_si256(v, nibble), _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)};
    return n;
}

CURLSCAN_AVX2 static inline __m256i lookup32(Nibbles n, __m256i low, __m256i high) {
    return _mm256_and_si256(_mm256_shuffle_epi8(low, n.lo), _mm256_shuffle_epi8(high, n.hi));
}

/// The query class and the hexadecimal digits. Bits 0…5 are one per ASCII row 0x2_…0x7_ (the
/// low nibbles that row allows in `pchar / "/" / "?"`), so a byte is in the query class when any
/// of them is set; bit 6 is the digits (row 3), bit 7 the letters a–f/A–F (rows 4 and 6).
CURLSCAN_AVX2 static inline __m256i class_bits32(Nibbles n) {
    const __m256i low = _mm256_setr_epi8(
        0x6E, (char)0xFF, (char)0xFE, (char)0xFE, (char)0xFF, (char)0xFF, (char)0xFF, 0x7F, 0x7F, 0x7F, 0x3F, 0x17, 0x15, 0x17, 0x35, 0x1F,
        0x6E, (char)0xFF, (char)0xFE, (char)0xFE, (char)0xFF, (char)0xFF, (char)0xFF, 0x7F, 0x7F, 0x7F, 0x3F, 0x17, 0x15, 0x17, 0x35, 0x1F);
    const __m256i high = _mm256_setr_epi8(
        0, 0, 0x01, 0x42, (char)0x84, 0x08, (char)0x90, 0x20, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0x01, 0x42, (char)0x84, 0x08, (char)0x90, 0x20, 0, 0, 0, 0, 0, 0, 0, 0);
    return lookup32(n, low, high);
}

/// The scheme bytes (`ALPHA / DIGIT / "+" / "-" / "."`, bits 0…3) and the uppercase letters
/// (bits 4…5), for the head's first block (instead of seven range compares). Bit 0 is "+-." (row
/// 2: B, D, E), bit 1 the digits (row 3: 0…9), bit 2 rows 4 and 6 at 1…F (A–O, a–o), bit 3 rows 5
/// and 7 at 0…A (P–Z, p–z); bits 4 and 5 are bits 2 and 3 for rows 4 and 5 only.
CURLSCAN_AVX2 static inline __m256i scheme_bits32(Nibbles n) {
    const __m256i low = _mm256_setr_epi8(
        0x2A, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3C, 0x15, 0x14, 0x15, 0x15, 0x14,
        0x2A, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3E, 0x3C, 0x15, 0x14, 0x15, 0x15, 0x14);
    const __m256i high = _mm256_setr_epi8(
        0, 0, 0x01, 0x02, 0x14, 0x28, 0x04, 0x08, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0x01, 0x02, 0x14, 0x28, 0x04, 0x08, 0, 0, 0, 0, 0, 0, 0, 0);
    return lookup32(n, low, high);
}

/// The bytes whose `bits` has none of `mask`'s bits set.
CURLSCAN_AVX2 static inline uint32_t none32(__m256i bits, char mask) {
    return bits32(_mm256_cmpeq_epi8(_mm256_and_si256(bits, _mm256_set1_epi8(mask)), _mm256_setzero_si256()));
}

CURLSCAN_AVX2 static inline Block classify32(__m256i v, int head) {
    Block b = {0};  // the head masks stay 0 when not asked for
    Nibbles n = nibbles32(v);
    __m256i classes = class_bits32(n);
    b.outside = none32(classes, 0x3F);
    b.hex = ~none32(classes, (char)0xC0);
    b.question = bits32(eq32(v, '?'));
    b.percent = bits32(eq32(v, '%'));
    b.high = (uint32_t)_mm256_movemask_epi8(v);
    if (head == HEAD_ALL) {
        __m256i scheme = scheme_bits32(n);
        b.notScheme = none32(scheme, 0x0F);
        b.upper = ~none32(scheme, 0x30);
    }
    if (head != HEAD_NONE) {
        b.slash = bits32(eq32(v, '/'));
        b.colon = bits32(eq32(v, ':'));
        b.at = bits32(eq32(v, '@'));
    }
    return b;
}

CURLSCAN_AVX2 static inline Block classify32_at(const uint8_t *p, int head) {
    return classify32(_mm256_loadu_si256((const __m256i *)p), head);
}

/// The block of the last `n - start` (1…31) bytes, in bits 0..<(n - start).
CURLSCAN_AVX2 static inline Block classify32_tail(const uint8_t *p, size_t n, size_t start, int head) {
    unsigned r = (unsigned)(n - start);
    if (n >= 32) return shifted_tail(classify32_at(p + n - 32, head), 32, r);
    uint8_t padded[32] = {0};
    memcpy(padded, p + start, r);
    return padded_tail(classify32_at(padded, head), r);
}

/// Bytes `start..<min(start + 32, n)` in bits 0..<32 (bits past the end are 0); all 0 when
/// `start >= n`.
CURLSCAN_AVX2 static inline Block classify32_part(const uint8_t *p, size_t n, size_t start, int head) {
    if (start + 32 <= n) return classify32_at(p + start, head);
    if (start >= n) {
        Block none = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        return none;
    }
    return classify32_tail(p, n, start, head);
}

/// The masks of one 64-bit word (64 input bytes) of the output: two 32-byte blocks.
typedef struct {
    uint64_t outside, question, percent, hex;
} Word;

static inline Word word_of(const Block *lo, const Block *hi) {
    Word w = {
        lo->outside | (uint64_t)hi->outside << 32, lo->question | (uint64_t)hi->question << 32,
        lo->percent | (uint64_t)hi->percent << 32, lo->hex | (uint64_t)hi->hex << 32,
    };
    return w;
}

/// `w.outside` with every '%' of `w` not followed by two hexadecimal digits; `nextHex` is the
/// next word's digits (0 after the last word), for an escape that straddles the two.
static inline uint64_t outside_with_escapes(const Word *w, uint64_t nextHex) {
    uint64_t one = (w->hex >> 1) | (nextHex << 63), two = (w->hex >> 2) | (nextHex << 62);
    return w->outside | (w->percent & ~(one & two));
}

static inline void store64(uint16_t *slots, size_t word, uint64_t value) {
    memcpy(slots + 4 * word, &value, 8);  // x86-64 only: the four 16-bit blocks in little-endian order
}

/// The AVX2 classification works in the 64-bit words Swift reads (64 input bytes, two 32-byte
/// blocks): each word is stored once, whole. (Stored as two 32-bit halves, the words were read
/// back by Swift across two stores, and the loop over 32-byte blocks carried a head test, a
/// tail test and a zero fill per block: 395 instructions per URL of the benchmark, callgrind.)
/// Word 0 is the head: its first block also yields the scheme masks, both its blocks the
/// delimiters. Every word up to the sentinel's (`n >> 6`) is written, so nothing is zero-filled.
CURLSCAN_AVX2 static int classify_avx2(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head, uint16_t *high) {
    uint32_t nonASCII = 0;
    size_t last = n >> 6;  // the sentinel's word
    Block lo = classify32_part(p, n, 0, HEAD_ALL), hi = classify32_part(p, n, 32, HEAD_DELIMITERS);
    take_non_ascii(&lo, high);
    take_non_ascii(&hi, high);
    CURLScanHead h = {
        lo.notScheme, lo.upper, lo.slash | (uint64_t)hi.slash << 32, lo.colon | (uint64_t)hi.colon << 32,
        lo.at | (uint64_t)hi.at << 32,
    };
    end_scheme_at_32(&h);
    *head = h;
    Word previous = word_of(&lo, &hi);
    store64(question, 0, previous.question);
    if (high) {
        store64(high, 0, lo.high | (uint64_t)hi.high << 32);
        nonASCII |= lo.high | hi.high;
    }
    for (size_t w = 1; w <= last; w++) {
        if (w < last) {  // 64 whole bytes
            lo = classify32_at(p + (w << 6), 0);
            hi = classify32_at(p + (w << 6) + 32, 0);
        } else {  // the last 0…63 bytes
            lo = classify32_part(p, n, w << 6, 0);
            hi = classify32_part(p, n, (w << 6) + 32, 0);
        }
        take_non_ascii(&lo, high);
        take_non_ascii(&hi, high);
        Word current = word_of(&lo, &hi);
        store64(outside, w - 1, outside_with_escapes(&previous, current.hex));
        store64(question, w, current.question);
        if (high) {
            store64(high, w, lo.high | (uint64_t)hi.high << 32);
            nonASCII |= lo.high | hi.high;
        }
        previous = current;
    }
    store64(outside, last, outside_with_escapes(&previous, 0) | 1ull << (n & 63));  // with the sentinel
    return nonASCII != 0;
}
#endif

int curl_scan_classify(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head, uint16_t *high) {
#if defined(__x86_64__) && defined(__clang__)
    if (__builtin_cpu_supports("avx2")) return classify_avx2(p, n, outside, question, head, high);
#endif
    return classify_sse2(p, n, outside, question, head, high);
}

int curl_scan_classify_baseline(const uint8_t *p, size_t n, uint16_t *outside, uint16_t *question, CURLScanHead *head, uint16_t *high) {
    return classify_sse2(p, n, outside, question, head, high);
}
