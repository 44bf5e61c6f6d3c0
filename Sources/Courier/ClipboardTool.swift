import CourierNames
#if canImport(Glibc)
import Glibc
#endif

/// The session's clipboard program, when it has one: `wl-copy` under Wayland (`WAYLAND_DISPLAY`),
/// `xclip` under X11 (`DISPLAY`), found on `PATH`. "Copy" is offered only when one is there.
struct ClipboardTool: Sendable, Hashable {
    /// The command that reads the text to copy on its standard input.
    var argv: [String]

    /// The tool this process's session offers, if any.
    static func detect(_ variable: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> ClipboardTool? {
        let path = variable("PATH")
        if variable("WAYLAND_DISPLAY").map({ !$0.isEmpty }) == true, let tool = SearchPath.find("wl-copy", in: path) {
            return ClipboardTool(argv: [tool])
        }
        if variable("DISPLAY").map({ !$0.isEmpty }) == true, let tool = SearchPath.find("xclip", in: path) {
            return ClipboardTool(argv: [tool, "-selection", "clipboard", "-in"])
        }
        return nil
    }
}
