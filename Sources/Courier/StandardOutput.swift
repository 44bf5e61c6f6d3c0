// `@preconcurrency`: Swift 6 refuses a reference to the C global `stdout` (a `var`) otherwise; it
// is only passed to `setvbuf`, once, before the app prints anything.
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The app's standard output.
enum StandardOutput {
    /// A launched app's standard output is its log file (`courier log`), where C stdio — and so
    /// Swift's `print` — would buffer whole blocks: line by line, each printed line is there when
    /// `print` returns. (Through the symbol itself, not `dlsym`, which finds nothing in an app
    /// linked fully static.)
    static func bufferLines() {
        guard isatty(1) == 0 else { return }
        setvbuf(stdout, nil, _IOLBF, 0)
    }
}
