#if canImport(Glibc)
import Glibc
#endif

/// Programs that run a script named on their command line: for them the executable alone says
/// nothing about which app a process is (every Python app runs `/usr/bin/python3`), so the
/// receiver check also compares the script (docs/security.md, "Interpreters").
///
/// A launch command runs a script when either
/// - its executable, as named or with links resolved, is a known interpreter (`knownNames`, a
///   version suffix ignored: `python3.11`, `perl5.36.0`, `lua5.4` are `python`, `perl`, `lua`),
///   and the script is its first operand (`scriptOperand`), or
/// - its executable is itself a script: a file that starts with `#!` (`shebang`); the kernel runs
///   the interpreter named there with the script's path as its first operand.
public enum Interpreter {
    /// Interpreters by name, without a version suffix.
    public static let knownNames: Set<String> = [
        "python", "pypy", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "luajit",
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "tclsh", "wish", "gjs", "guile", "Rscript", "pwsh",
    ]

    /// Options that give the code inline or as a module rather than as a file (`python3 -c`,
    /// `python3 -m`, `perl -e`, `node --eval`, `sh -c`, …): a command line using one before any
    /// operand runs no script file Courier could compare.
    static let inlineCodeOptions: Set<String> = ["-c", "-m", "-e", "-E", "-r", "-p", "--eval", "--print", "--command"]

    /// Whether the file at `path` is a known interpreter, by the name it was given or the name of
    /// the file its links lead to.
    public static func isInterpreter(path: String) -> Bool {
        var names = [baseName(path)]
        if let real = realpath(path, nil) {
            names.append(baseName(String(cString: real)))
            free(real)
        }
        return names.contains { knownNames.contains(withoutVersion($0)) }
    }

    /// The script a command line runs: the first argument after `arguments[0]` that is not an
    /// option (a lone `--` ends the options), or nil when there is none or an inline-code option
    /// comes first. Options that take a value (`python3 -W ignore app.py`) are not understood:
    /// their value would be taken for the script, which then does not match, so such an app is
    /// only ever the process Courier launched; put the script first.
    public static func scriptOperand(in arguments: [String]) -> String? {
        var optionsEnded = false
        for argument in arguments.dropFirst() {
            if !optionsEnded {
                if argument == "--" { optionsEnded = true; continue }
                if inlineCodeOptions.contains(argument) { return nil }
                if argument.hasPrefix("-") && argument.count > 1 { continue }
            }
            return argument.isEmpty ? nil : argument
        }
        return nil
    }

    /// The interpreter line of the file at `path` (`#!/usr/bin/python3 -u` → ("/usr/bin/python3",
    /// "-u")); nil when the file does not start with `#!` or cannot be read.
    public static func shebang(ofFile path: String) -> (interpreter: String, argument: String?)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 2 else { return nil }
        return shebang(of: buffer[..<count])
    }

    /// The interpreter line at the start of `bytes`, as the kernel reads it: after `#!`, the
    /// interpreter up to the first blank, then everything else on the line as one argument.
    static func shebang(of bytes: some Collection<UInt8>) -> (interpreter: String, argument: String?)? {
        guard bytes.starts(with: [UInt8(ascii: "#"), UInt8(ascii: "!")]) else { return nil }
        let line = bytes.dropFirst(2).prefix { $0 != UInt8(ascii: "\n") }
        let text = String(decoding: line, as: UTF8.self).trimmingBlanks()
        guard !text.isEmpty else { return nil }
        let interpreter = String(text.prefix { $0 != " " && $0 != "\t" })
        let rest = String(text.dropFirst(interpreter.count)).trimmingBlanks()
        return (interpreter, rest.isEmpty ? nil : rest)
    }

    static func baseName(_ path: String) -> String {
        var name = path.hasSuffix(" (deleted)") ? String(path.dropLast(" (deleted)".count)) : path
        while name.hasSuffix("/") && name.count > 1 { name.removeLast() }
        return name.split(separator: "/").last.map(String.init) ?? name
    }

    /// `python3.11` → `python`: the name without trailing digits and dots.
    static func withoutVersion(_ name: String) -> String {
        let stripped = String(name.reversed().drop { $0.isNumber || $0 == "." }.reversed())
        return stripped.isEmpty ? name : stripped
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and carriage returns.
    func trimmingBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
