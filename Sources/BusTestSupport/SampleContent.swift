/// Smallest files of well-known types, for the tests that check content sniffing (libmagic) in a
/// module (CourierTypesTests) and through the built CLI (`courier handlers --type FILE`).
public enum SampleContent {
    /// A 1×1 PNG header: libmagic calls it `image/png`.
    public static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
    /// A minimal PDF: `application/pdf`.
    public static let pdf = Array("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n".utf8)
}
