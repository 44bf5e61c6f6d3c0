public import CourierURL
import Foundation

/// The property-list form of ``URLFormat`` (docs/url-format.md), as read from an app's manifest
/// under the key `CourierURLFormat`. Here, beside the manifest, not in CourierURL: it names
/// Foundation's `NSNumber`, and an app that links CourierURL to check its URLs would otherwise link
/// the whole swift-corelibs Foundation — thousands more protocol-conformance records, which every
/// first conformance look-up of its start-up searches (docs/PERFORMANCE.md, "Cold open").
///
/// Strict on purpose: an unknown key is an error, because a misspelled `Presence` silently
/// ignored would let malformed URLs through to the app.
extension URLFormat {
    /// Reads the format from property-list values (`[String: Any]`, `[Any]`, `String`, `Bool`,
    /// `NSNumber`/`Int`), as produced by `PropertyListSerialization`.
    /// - Throws: ``URLFormatError`` naming the key path of the first problem.
    public init(propertyList: Any) throws(URLFormatError) {
        let root = try PropertyListReader.dictionary(propertyList, at: "")
        try PropertyListReader.allowOnly(["Schemes", "Components", "QueryItems", "AllowsOtherQueryItems", "DNSHost", "AllowsControlCharacters"], in: root, at: "")
        var schemes: [URIScheme] = []
        if let list = root["Schemes"] {
            let array = try PropertyListReader.array(list, at: "Schemes")
            for (index, item) in array.enumerated() {
                let path = "Schemes[\(index)]"
                let name = try PropertyListReader.string(item, at: path)
                do {
                    schemes.append(try URIScheme(name))
                } catch {
                    throw URLFormatError(keyPath: path, message: error.message, advice: error.advice)
                }
            }
        }
        var components: [URIComponent: URLComponentRule] = [:]
        if let value = root["Components"] {
            let dictionary = try PropertyListReader.dictionary(value, at: "Components")
            for (key, ruleValue) in dictionary.sorted(by: { $0.key < $1.key }) {
                let path = "Components.\(key)"
                guard let component = URIComponent(rawValue: key), component != .scheme else {
                    let names = URIComponent.allCases.filter { $0 != .scheme }.map(\.rawValue).joined(separator: ", ")
                    throw URLFormatError(
                        keyPath: path, message: "\"\(key)\" is not a URL component",
                        advice: key == "scheme" ? "list schemes under Schemes" : "use one of \(names)")
                }
                components[component] = try PropertyListReader.rule(ruleValue, at: path)
            }
        }
        var queryItems: [String: URLComponentRule] = [:]
        if let value = root["QueryItems"] {
            let dictionary = try PropertyListReader.dictionary(value, at: "QueryItems")
            for (name, ruleValue) in dictionary {
                queryItems[name] = try PropertyListReader.rule(ruleValue, at: "QueryItems.\(name)")
            }
        }
        let allowsOthers = try root["AllowsOtherQueryItems"].map { (v) throws(URLFormatError) in
            try PropertyListReader.bool(v, at: "AllowsOtherQueryItems")
        } ?? true
        let dnsHost = try root["DNSHost"].map { (v) throws(URLFormatError) in try PropertyListReader.bool(v, at: "DNSHost") } ?? false
        let allowsControls = try root["AllowsControlCharacters"].map { (v) throws(URLFormatError) in
            try PropertyListReader.bool(v, at: "AllowsControlCharacters")
        } ?? false
        self.init(schemes: schemes, components: components, queryItems: queryItems, allowsOtherQueryItems: allowsOthers,
                  dnsHost: dnsHost, allowsControlCharacters: allowsControls)
    }

    /// The format as property-list values, the inverse of ``init(propertyList:)`` (defaults omitted).
    public var propertyList: [String: Any] {
        var root: [String: Any] = [:]
        if !schemes.isEmpty { root["Schemes"] = schemes.map(\.name) }
        if !components.isEmpty {
            root["Components"] = Dictionary(uniqueKeysWithValues: components.map { ($0.key.rawValue, $0.value.propertyList) })
        }
        if !queryItems.isEmpty {
            root["QueryItems"] = queryItems.mapValues(\.propertyList)
        }
        if !allowsOtherQueryItems { root["AllowsOtherQueryItems"] = false }
        if dnsHost { root["DNSHost"] = true }
        if allowsControlCharacters { root["AllowsControlCharacters"] = true }
        return root
    }
}

extension URLComponentRule {
    /// The rule as property-list values (defaults omitted).
    public var propertyList: [String: Any] {
        var rule: [String: Any] = [:]
        if presence != .optional { rule["Presence"] = presence.rawValue }
        if decoding != .percent { rule["Decoding"] = decoding.rawValue }
        switch type {
        case .text: break
        case .integer(let minimum, let maximum):
            rule["Type"] = "integer"
            if let minimum { rule["Minimum"] = minimum }
            if let maximum { rule["Maximum"] = maximum }
        case .dateTime(let pattern):
            rule["Type"] = "date"
            rule["Format"] = pattern.pattern
        }
        if !keywords.isEmpty { rule["Keywords"] = keywords }
        if !allowsBlank { rule["NonBlank"] = true }
        if let pattern { rule["Pattern"] = pattern }
        if let maximumLength { rule["MaxLength"] = maximumLength }
        return rule
    }
}

/// Typed reads of property-list values, each failure naming its key path.
enum PropertyListReader {
    static func describe(_ value: Any) -> String {
        switch value {
        case is String: "a string"
        case _ where isBoolean(value): "a Boolean"
        case is [Any]: "an array"
        case is [String: Any]: "a dictionary"
        case is Date: "a date"
        case is Data: "data"
        case is NSNumber: "a number"
        default: "a \(type(of: value))"
        }
    }

    static func wrongType(_ value: Any, expected: String, at path: String) -> URLFormatError {
        URLFormatError(keyPath: path, message: "expected \(expected), found \(describe(value))", advice: "write \(expected) here")
    }

    static func dictionary(_ value: Any, at path: String) throws(URLFormatError) -> [String: Any] {
        guard let dictionary = value as? [String: Any] else { throw wrongType(value, expected: "a dictionary", at: path) }
        return dictionary
    }

    static func array(_ value: Any, at path: String) throws(URLFormatError) -> [Any] {
        guard let array = value as? [Any] else { throw wrongType(value, expected: "an array", at: path) }
        return array
    }

    static func string(_ value: Any, at path: String) throws(URLFormatError) -> String {
        guard let string = value as? String else { throw wrongType(value, expected: "a string", at: path) }
        return string
    }

    /// A property-list Boolean: a Swift `Bool`, or an `NSNumber` made from one (not the number 0 or
    /// 1, which Foundation would also cast to `Bool`).
    static func isBoolean(_ value: Any) -> Bool {
        if type(of: value) == Bool.self { return true }
        if let number = value as? NSNumber, !(value is String) { return String(cString: number.objCType) == "c" }
        return false
    }

    static func bool(_ value: Any, at path: String) throws(URLFormatError) -> Bool {
        guard isBoolean(value), let bool = value as? Bool else {
            throw wrongType(value, expected: "a Boolean (<true/> or <false/>)", at: path)
        }
        return bool
    }

    static func integer(_ value: Any, at path: String) throws(URLFormatError) -> Int {
        if isBoolean(value) { throw wrongType(value, expected: "an integer", at: path) }
        if let int = value as? Int { return int }
        if let number = value as? NSNumber, let int = Int(exactly: number.doubleValue) { return int }
        throw wrongType(value, expected: "an integer", at: path)
    }

    static func allowOnly(_ keys: Set<String>, in dictionary: [String: Any], at path: String) throws(URLFormatError) {
        for key in dictionary.keys.sorted() where !keys.contains(key) {
            throw URLFormatError(
                keyPath: path.isEmpty ? key : "\(path).\(key)", message: "unknown key \"\(key)\"",
                advice: "use only \(keys.sorted().joined(separator: ", ")) (keys are case-sensitive)")
        }
    }

    static func choice<T: RawRepresentable & CaseIterable>(
        _ value: Any, as _: T.Type, at path: String
    ) throws(URLFormatError) -> T where T.RawValue == String {
        let text = try string(value, at: path)
        guard let choice = T(rawValue: text) else {
            throw URLFormatError(
                keyPath: path, message: "\"\(text)\" is not a valid value",
                advice: "use one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    static func rule(_ value: Any, at path: String) throws(URLFormatError) -> URLComponentRule {
        let dictionary = try self.dictionary(value, at: path)
        try allowOnly(
            ["Presence", "Decoding", "Type", "Format", "Minimum", "Maximum", "Keywords", "NonBlank", "Pattern", "MaxLength"],
            in: dictionary, at: path)
        var rule = URLComponentRule()
        if let v = dictionary["Presence"] { rule.presence = try choice(v, as: URLComponentRule.Presence.self, at: "\(path).Presence") }
        if let v = dictionary["Decoding"] { rule.decoding = try choice(v, as: URLComponentRule.Decoding.self, at: "\(path).Decoding") }
        let typeName = try dictionary["Type"].map { (v) throws(URLFormatError) in try string(v, at: "\(path).Type") } ?? "text"
        let minimum = try dictionary["Minimum"].map { (v) throws(URLFormatError) in try integer(v, at: "\(path).Minimum") }
        let maximum = try dictionary["Maximum"].map { (v) throws(URLFormatError) in try integer(v, at: "\(path).Maximum") }
        let format = try dictionary["Format"].map { (v) throws(URLFormatError) in try string(v, at: "\(path).Format") }
        switch typeName {
        case "text":
            rule.type = .text
        case "integer":
            if let minimum, let maximum, minimum > maximum {
                throw URLFormatError(keyPath: "\(path).Minimum", message: "Minimum \(minimum) is above Maximum \(maximum)", advice: "swap them")
            }
            rule.type = .integer(minimum: minimum, maximum: maximum)
        case "date":
            guard let format else {
                throw URLFormatError(keyPath: "\(path).Format", message: "a date needs a Format", advice: "add Format, e.g. yyyyMMddHHmm")
            }
            do {
                rule.type = .dateTime(try DateTimePattern(format))
            } catch {
                throw URLFormatError(keyPath: "\(path).Format", message: error.reason, advice: "use the fields yyyy MM dd HH mm ss")
            }
        default:
            throw URLFormatError(keyPath: "\(path).Type", message: "\"\(typeName)\" is not a type", advice: "use text, integer or date")
        }
        if typeName != "integer", minimum != nil || maximum != nil {
            throw URLFormatError(keyPath: "\(path).\(minimum != nil ? "Minimum" : "Maximum")", message: "bounds apply only to Type integer", advice: "remove it or set Type to integer")
        }
        if typeName != "date", format != nil {
            throw URLFormatError(keyPath: "\(path).Format", message: "Format applies only to Type date", advice: "remove it or set Type to date")
        }
        if let v = dictionary["Keywords"] {
            let list = try array(v, at: "\(path).Keywords")
            for (index, item) in list.enumerated() {
                rule.keywords.append(try string(item, at: "\(path).Keywords[\(index)]"))
            }
        }
        if let v = dictionary["NonBlank"] { rule.allowsBlank = !(try bool(v, at: "\(path).NonBlank")) }
        if let v = dictionary["Pattern"] {
            let pattern = try string(v, at: "\(path).Pattern")
            guard (try? Regex(pattern)) != nil else {
                throw URLFormatError(keyPath: "\(path).Pattern", message: "\"\(pattern)\" is not a valid regular expression", advice: "fix its syntax")
            }
            rule.pattern = pattern
        }
        if let v = dictionary["MaxLength"] {
            let length = try integer(v, at: "\(path).MaxLength")
            guard length >= 0 else {
                throw URLFormatError(keyPath: "\(path).MaxLength", message: "MaxLength \(length) is negative", advice: "use 0 or more")
            }
            rule.maximumLength = length
        }
        return rule
    }
}
