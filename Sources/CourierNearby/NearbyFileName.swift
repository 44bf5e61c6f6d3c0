import CourierNames

/// The rules a `fileName` from the network must pass before anything is accepted.
///
/// The Inbox sanitises every name again (last component, NFC, no control characters, unique), so
/// nothing here is needed for the file system's safety; it is here so that a sender whose names are
/// hostile or broken hears *why* at `prepare-upload` (400 and this message) instead of having its
/// `../../.bashrc` silently become `.bashrc` → `bashrc` in an Inbox. A LocalSend folder transfer
/// sends `folder/file` names: folders are refused too (an Inbox holds files).
public enum NearbyFileName {
    /// The longest name accepted, in UTF-8 bytes (the Linux limit for one path component).
    public static let maximumBytes = 255

    /// Names of devices on the systems LocalSend peers run (Windows keeps them special in every
    /// folder, with any extension).
    static let deviceNames: Set<String> = {
        var names: Set<String> = ["con", "prn", "aux", "nul", "conin$", "conout$"]
        for n in 0...9 { names.insert("com\(n)"); names.insert("lpt\(n)") }
        return names
    }()

    /// Throws a 400 naming the problem, or returns the name unchanged.
    @discardableResult
    public static func validate(_ name: String) throws(NearbyError) -> String {
        let shown = name.count > 60 ? CleanText.escaped(name.prefix(60)).debugDescription + "…" : CleanText.escaped(name).debugDescription
        if name.isEmpty || name.allSatisfy({ $0 == " " }) {
            throw .invalid("fileName is empty; send a file with a name")
        }
        if name.utf8.count > maximumBytes {
            throw .invalid("fileName \(shown) is \(name.utf8.count) bytes long; at most \(maximumBytes) bytes are accepted")
        }
        if name.unicodeScalars.contains(where: { $0.value == 0 }) {
            throw .invalid("fileName \(shown) contains a NUL character")
        }
        if let unclean = CleanText.firstUnclean(in: name) {
            throw .invalid("fileName \(CleanText.escaped(name.prefix(60)).debugDescription) contains \(unclean) at character \(unclean.offset + 1); rename the file")
        }
        if name.contains("/") || name.contains("\\") {
            throw .invalid("fileName \(shown) is a path; folders are not accepted, send the files themselves")
        }
        if name == "." || name == ".." {
            throw .invalid("fileName \(shown) names a folder, not a file")
        }
        let stem = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? name
        if deviceNames.contains(stem.lowercased().trimmingTrailing(" ")) {
            throw .invalid("fileName \(shown) is the name of a device; rename the file")
        }
        return name
    }
}

extension String {
    fileprivate func trimmingTrailing(_ character: Character) -> String {
        var copy = self
        while copy.last == character { copy.removeLast() }
        return copy
    }
}
