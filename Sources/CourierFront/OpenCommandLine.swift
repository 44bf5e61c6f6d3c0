import CourierNames

/// The `courier open` command lines the front answers itself: URLs with `-b/--bundle-id`,
/// `--background`, `--activation-token`, `--no-wait`, `--dry-run`, `--no-fallback`,
/// `--desktop-entry` and `--`. Any other form (an unknown or repeated option, `--json`,
/// `--annotation`, `-a/--app`, `-W/--wait`, `--help`, a missing value, no URL, a FILE or `file:`
/// URL among the arguments — `OpenArgument`) gives nil, and the full CLI runs instead, so its
/// parser stays the one judge of usage errors and help, and files take the drop path.
struct OpenCommandLine: Equatable {
    var urls: [String] = []
    var bundleID: String?
    var background = false
    var activationToken: String?
    var noWait = false
    var dryRun = false
    var noFallback = false
    var desktopEntry = false

    /// `arguments` without the program name: `["open", …]`.
    init?(_ arguments: [String]) {
        guard arguments.first == "open" else { return nil }
        var seen: Set<String> = []
        var rest = arguments.dropFirst()
        var onlyURLs = false
        while let argument = rest.popFirst() {
            if onlyURLs || !argument.hasPrefix("-") {
                urls.append(argument)
                continue
            }
            if argument == "--" {
                onlyURLs = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if name == "-b" { name = "--bundle-id" }
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "--bundle-id", "--activation-token":
                guard let value = inlineValue ?? rest.popFirst(), !value.hasPrefix("-") else { return nil }
                if name == "--bundle-id" { bundleID = value } else { activationToken = value }
                continue
            default:
                break
            }
            guard inlineValue == nil else { return nil }
            switch name {
            case "--background": background = true
            case "--no-wait": noWait = true
            case "--dry-run": dryRun = true
            case "--no-fallback": noFallback = true
            case "--desktop-entry": desktopEntry = true
            default: return nil
            }
        }
        if urls.isEmpty || !urls.allSatisfy(OpenArgument.isURL) { return nil }
    }

    /// The same command line for the full CLI, for one of the URLs (`--` before it, so a URL that
    /// starts with `-` stays a URL).
    func arguments(for url: String) -> [String] {
        var arguments = ["open"]
        if let bundleID { arguments += ["--bundle-id", bundleID] }
        if background { arguments.append("--background") }
        if let activationToken { arguments += ["--activation-token", activationToken] }
        if noWait { arguments.append("--no-wait") }
        if dryRun { arguments.append("--dry-run") }
        if noFallback { arguments.append("--no-fallback") }
        if desktopEntry { arguments.append("--desktop-entry") }
        return arguments + ["--", url]
    }
}
