import Crypto
import Foundation

extension SHA256Digest {
    /// Lowercase hex, as LocalSend writes fingerprints and `sha256` fields.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
