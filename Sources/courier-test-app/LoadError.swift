/// A failure of the load tooling itself (bad option, missing binary, a process that would not
/// start): what went wrong and what to do.
struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
