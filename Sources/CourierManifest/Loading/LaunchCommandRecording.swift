import Foundation

/// The installed copy `courier register` writes: the user's manifest with `argv[0]` of
/// `CourierLaunchArguments` replaced by the absolute path the registering user's `PATH` gave, so
/// that the broker runs that program whatever its own `PATH` (a bus-activated broker has the
/// session's, without `~/.local/bin`).
///
/// Written by ``PropertyListValue/xmlPropertyList`` rather than Foundation's
/// `PropertyListSerialization`, which cannot write a property list in a statically linked process
/// (the installed `courier-tool`: "property lists cannot contain objects of type 'Not A Type'").
/// The result is read back before it is returned: it is a manifest whose `argv[0]` is exactly
/// `executable`, or the recording fails with the reason — never the original silently.
public enum LaunchCommandRecording {
    /// Why the path cannot be recorded.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// `bytes` (a manifest read from `path`) as an XML property list with `argv[0]` replaced by `executable`.
    public static func recording(_ executable: String, in bytes: [UInt8], path: String) throws(Failure) -> [UInt8] {
        let key = ManifestParser.launchArgumentsKey
        let root: PropertyListValue
        switch ManifestLoader.propertyList(bytes) {
        case .success(let value): root = value
        case .failure(let problem): throw Failure(reason: problem.text)
        }
        guard case .dictionary(var plist) = root else { throw Failure(reason: "its top level is not a dictionary") }
        guard case .array(var argv)? = plist[key], !argv.isEmpty else { throw Failure(reason: "it has no \(key) array to record the path in") }
        argv[0] = .string(executable)
        plist[key] = .array(argv)
        let rewritten = Array(PropertyListValue.dictionary(plist).xmlPropertyList.utf8)
        let reloaded = ManifestLoader().decode(rewritten, path: path)
        guard let first = reloaded.manifest?.launchCommand?.arguments.first else {
            throw Failure(reason: "the rewritten manifest does not load: \(reloaded.diagnostics.map(\.message).joined(separator: "; "))")
        }
        guard first == executable else { throw Failure(reason: "the rewritten manifest launches '\(first)', not '\(executable)'") }
        return rewritten
    }
}

extension PropertyListValue {
    /// The value as a complete XML property-list document (Apple's DTD, tab-indented, dictionary
    /// keys in order). Characters XML 1.0 cannot carry as text are written as character references.
    public var xmlPropertyList: String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        write(to: &out, indent: "")
        out += "</plist>\n"
        return out
    }

    private func write(to out: inout String, indent: String) {
        switch self {
        case .string(let s): out += indent + "<string>" + Self.escaped(s) + "</string>\n"
        case .integer(let i): out += indent + "<integer>\(i)</integer>\n"
        case .real(let d):
            let text = d.isNaN ? "nan" : d.isInfinite ? (d < 0 ? "-infinity" : "+infinity") : "\(d)"
            out += indent + "<real>\(text)</real>\n"
        case .boolean(let b): out += indent + (b ? "<true/>\n" : "<false/>\n")
        case .date(let date): out += indent + "<date>" + date.formatted(.iso8601) + "</date>\n"
        case .data(let data): out += indent + "<data>" + data.base64EncodedString() + "</data>\n"
        case .array(let items):
            if items.isEmpty { out += indent + "<array/>\n"; return }
            out += indent + "<array>\n"
            for item in items { item.write(to: &out, indent: indent + "\t") }
            out += indent + "</array>\n"
        case .dictionary(let entries):
            if entries.isEmpty { out += indent + "<dict/>\n"; return }
            out += indent + "<dict>\n"
            for key in entries.keys.sorted() {
                out += indent + "\t<key>" + Self.escaped(key) + "</key>\n"
                entries[key]!.write(to: &out, indent: indent + "\t")
            }
            out += indent + "</dict>\n"
        }
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            // XML text escapes (a property list's own rule: C0 as character references, which
            // Courier's reader and Foundation's accept).
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { out += "&#\(scalar.value);" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
