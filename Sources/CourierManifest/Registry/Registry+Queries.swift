import Glibc

extension Registry {
    /// The scheme of `text`, lowercased: the part before the first `:` of a URL, or `text` itself
    /// when it has no colon. nil when that is not a valid scheme.
    public static func scheme(fromURLOrScheme text: String) -> String? {
        let candidate: Substring
        if let colon = text.firstIndex(of: ":") { candidate = text[..<colon] } else { candidate = Substring(text) }
        let scheme = candidate.lowercased()
        return Identifiers.isValidScheme(scheme) ? scheme : nil
    }

    /// When `argument` names an existing file (or folder), its identification; nil otherwise
    /// (then the argument is taken as a type identifier). Never blocks on FIFOs or devices.
    public static func identifyFileArgument(_ argument: String, in registry: Registry) -> FileTypeIdentification? {
        var st = stat()
        guard stat(argument, &st) == 0 else { return nil }
        return registry.fileTypes.identify(path: argument)
    }
}
