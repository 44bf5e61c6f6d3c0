public import CourierURL

/// liburiparser as an oracle for CourierURL: both parse the same bytes and must give the same
/// verdict and the same components (``ComparableComponents``), unless a ``KnownDifference``
/// explains the disagreement. Used by `Tests/CourierURLTests/URIParserOracleTests` and by the
/// fuzzer (`Fuzz/URLParser`, on every input).
public enum URIParserOracle {
    /// What the two parsers made of one input.
    public enum Verdict: Equatable, Sendable, CustomStringConvertible {
        /// Both refuse, or both accept with the same components.
        case agree
        /// They disagree as a listed difference says they do, and agree on the rest.
        case explained(KnownDifference)
        /// A disagreement no listed difference explains: a bug in one of them (or a difference
        /// to decide on and list).
        case disagree(String)

        public var description: String {
            switch self {
            case .agree: "agree"
            case .explained(let difference): "explained by \(difference.rawValue)"
            case .disagree(let what): what
            }
        }
    }

    public static func compare(_ text: String) -> Verdict {
        var text = text
        return text.withUTF8 { compare($0) }
    }

    /// Parses `bytes` with both and compares; `maximumLength` is CourierURL's limit.
    public static func compare(_ bytes: UnsafeBufferPointer<UInt8>, maximumLength: Int = URIParsingOptions.default.maximumLength)
        -> Verdict
    {
        let ours: Result<URIReference, URIError> = Result { () throws(URIError) in
            try URIReference(utf8: bytes, options: URIParsingOptions(maximumLength: maximumLength))
        }
        let theirs = LibURIParser.parse(bytes) { ComparableComponents($0) }
        let input = String(decoding: bytes, as: UTF8.self).debugDescription
        switch (ours, theirs) {
        case (.failure, nil):
            return .agree
        case (.success(let reference), nil):
            return .disagree("CourierURL accepts \(input) (\(ComparableComponents(reference))) but uriparser refuses it")
        case (.success(let reference), let theirs?):
            let mine = ComparableComponents(reference)
            guard mine == theirs else {
                return .disagree("components of \(input) differ: CourierURL \(mine); uriparser \(theirs)")
            }
            let number = theirs.port.flatMap { $0.isEmpty ? nil : Int($0) }
            guard reference.port == number else {
                return .disagree("port of \(input): CourierURL \(reference.port.map(String.init) ?? "nil"), uriparser's text \(theirs.port ?? "nil")")
            }
            return .agree
        case (.failure(let error), let theirs?):
            if let difference = explanation(of: error, in: bytes, uriparser: theirs) { return .explained(difference) }
            return .disagree("CourierURL refuses \(input) (\(error)) but uriparser accepts it: \(theirs)")
        }
    }

    /// The listed difference that explains CourierURL refusing what uriparser accepts, checked by
    /// taking it out of the input and comparing again.
    static func explanation(of error: URIError, in bytes: UnsafeBufferPointer<UInt8>, uriparser theirs: ComparableComponents)
        -> KnownDifference?
    {
        if error.code == .tooLong, bytes.count > URIParsingOptions.default.maximumLength,
            compare(bytes, maximumLength: bytes.count) == .agree
        {
            return .longerThanLimit
        }
        if error.code == .invalidPort, let port = theirs.port, !port.isEmpty, port.utf8.allSatisfy({ $0 &- 0x30 < 10 }),
            port.drop(while: { $0 == "0" }).count > 5 || Int(port)! > 65535,
            error.offset + port.utf8.count <= bytes.count,
            bytes[error.offset..<error.offset + port.utf8.count].elementsEqual(port.utf8)
        {
            var inRange = Array(bytes)
            inRange.replaceSubrange(error.offset..<error.offset + port.utf8.count, with: [UInt8(ascii: "0")])
            if inRange.withUnsafeBufferPointer({ compare($0) }) == .agree { return .portAbove65535 }
        }
        return nil
    }
}
