import CourierInbox
import Testing

/// `ByteCount`: the one wording of sizes in Inbox errors and `courier drop`'s progress bar.
@Suite struct ByteCountTests {
    static let examples: [(Int64, String)] = [
        (0, "0 bytes"), (900, "900 bytes"), (1023, "1023 bytes"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
        (10 << 10, "10 KiB"), ((512 << 20) + (1 << 19), "512 MiB"), (1 << 30, "1.0 GiB"), (3 << 29, "1.5 GiB"),
        (5 << 40, "5.0 TiB"), (2048 << 40, "2048 TiB"),
    ]

    @Test(arguments: examples)
    func sizesReadInBinaryUnitsWithOneDecimalBelowTen(_ bytes: Int64, _ text: String) {
        #expect("\(ByteCount(bytes))" == text)
    }

    @Test func wholeUnitsFromTenOnAreRoundedDownSoProgressNeverOverstates() {
        #expect("\(ByteCount(UInt64((1 << 30) - 1)))" == "1023 MiB")
        #expect("\(ByteCount(UInt64.max))" == "\(ByteCount(Int64.max))")
    }
}
