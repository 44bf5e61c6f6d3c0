/// A fixed-width date-time layout such as `yyyyMMddHHmm`: fields `yyyy`, `MM`, `dd`, `HH`,
/// `mm`, `ss` (Unicode TR 35 letters, 24-hour clock) and literal punctuation (`-`, `T`, `:`…).
///
/// A value must match exactly: the same length, digits where fields are, the same literals,
/// and a real date and time. `yyyy`, `MM` and `dd` are required; missing time fields are 0.
public struct DateTimePattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    let pieces: [Piece]

    enum Piece: Hashable {
        case field(Field)
        case literal(UInt8)
    }

    enum Field: String, Hashable, CaseIterable {
        case year = "yyyy", month = "MM", day = "dd", hour = "HH", minute = "mm", second = "ss"
        var width: Int { self == .year ? 4 : 2 }
    }

    /// Why a pattern is not usable.
    public struct InvalidPattern: Error, Sendable, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Parses `pattern`.
    /// - Throws: ``InvalidPattern`` for unknown field letters, repeated fields, or a missing date.
    public init(_ pattern: String) throws(InvalidPattern) {
        var pieces: [Piece] = []
        var seen: Set<Field> = []
        var rest = Substring(pattern)
        outer: while let first = rest.first {
            for field in Field.allCases where rest.hasPrefix(field.rawValue) {
                guard seen.insert(field).inserted else {
                    throw InvalidPattern(reason: "the field \(field.rawValue) appears twice in \"\(pattern)\"")
                }
                pieces.append(.field(field))
                rest = rest.dropFirst(field.rawValue.count)
                continue outer
            }
            guard first.isASCII, let byte = first.asciiValue, !first.isLetter || first == "T" else {
                throw InvalidPattern(
                    reason: "\"\(first)\" in \"\(pattern)\" is not a field (yyyy MM dd HH mm ss) nor a literal (ASCII punctuation or T)")
            }
            pieces.append(.literal(byte))
            rest = rest.dropFirst()
        }
        for required in [Field.year, .month, .day] where !seen.contains(required) {
            throw InvalidPattern(reason: "\"\(pattern)\" has no \(required.rawValue) field; a date needs yyyy, MM and dd")
        }
        self.pattern = pattern
        self.pieces = pieces
    }

    public var description: String { pattern }

    /// The expected length in characters.
    public var length: Int {
        pieces.reduce(0) { sum, piece in
            if case .field(let field) = piece { return sum + field.width }
            return sum + 1
        }
    }

    /// Parses `text`, or says why it does not match.
    public func parse(_ text: String) -> Result<LocalDateTime, LocalDateTime.InvalidDate> {
        let bytes = Array(text.utf8)
        guard bytes.count == length, bytes.allSatisfy({ $0 < 0x80 }) else {
            return .failure(.init(reason: "expected exactly \(length) characters in the form \(pattern), found \(text.count)"))
        }
        var values: [Field: Int] = [:]
        var i = 0
        for piece in pieces {
            switch piece {
            case .literal(let byte):
                guard bytes[i] == byte else {
                    return .failure(.init(reason: "expected '\(Character(Unicode.Scalar(byte)))' at position \(i + 1) (form \(pattern))"))
                }
                i += 1
            case .field(let field):
                var value = 0
                for k in i..<(i + field.width) {
                    guard CharacterClass.isDigit(bytes[k]) else {
                        return .failure(.init(reason: "expected a digit at position \(k + 1) (form \(pattern)), found '\(Character(Unicode.Scalar(bytes[k])))'"))
                    }
                    value = value * 10 + Int(bytes[k] - UInt8(ascii: "0"))
                }
                values[field] = value
                i += field.width
            }
        }
        do {
            return .success(try LocalDateTime(
                year: values[.year]!, month: values[.month]!, day: values[.day]!,
                hour: values[.hour] ?? 0, minute: values[.minute] ?? 0, second: values[.second] ?? 0))
        } catch {
            return .failure(error)
        }
    }

    /// Writes `date` in this pattern (the inverse of ``parse(_:)``).
    public func format(_ date: LocalDateTime) -> String {
        var text = ""
        for piece in pieces {
            switch piece {
            case .literal(let byte): text.append(Character(Unicode.Scalar(byte)))
            case .field(let field):
                let value = switch field {
                case .year: date.year
                case .month: date.month
                case .day: date.day
                case .hour: date.hour
                case .minute: date.minute
                case .second: date.second
                }
                text += pad(value, field.width)
            }
        }
        return text
    }
}
