@testable import CourierBroker
import Foundation
import Testing

/// Which launch commands run a script, and which script: by a known interpreter's name (with or
/// without a version, as named or behind links) or by a `#!` line.
@Suite("Interpreter")
struct InterpreterTests {
    @Test func knownInterpretersAreToldByNameVersionOrLinkTarget() {
        #expect(Interpreter.isInterpreter(path: "/usr/bin/python3"))
        #expect(Interpreter.isInterpreter(path: "/usr/bin/python3.11"))
        #expect(Interpreter.isInterpreter(path: "/usr/local/bin/perl5.36.0"))
        #expect(Interpreter.isInterpreter(path: "/bin/sh"))
        #expect(!Interpreter.isInterpreter(path: "/bin/true"))
        #expect(!Interpreter.isInterpreter(path: "/usr/bin/todolist"))
        // A link with another name to an interpreter is one.
        let directory = TemporaryDirectory()
        let link = directory.url.appendingPathComponent("mytool").path
        #expect(symlink("/usr/bin/python3", link) == 0)
        #expect(Interpreter.isInterpreter(path: link))
    }

    @Test func theScriptIsTheFirstOperandUnlessCodeIsGivenInline() {
        #expect(Interpreter.scriptOperand(in: ["/usr/bin/python3", "app.py", "x"]) == "app.py")
        #expect(Interpreter.scriptOperand(in: ["/usr/bin/python3", "-u", "-B", "/opt/app.py"]) == "/opt/app.py")
        #expect(Interpreter.scriptOperand(in: ["/usr/bin/python3", "--", "-odd.py"]) == "-odd.py")
        #expect(Interpreter.scriptOperand(in: ["/usr/bin/python3", "-c", "print(1)", "app.py"]) == nil)
        #expect(Interpreter.scriptOperand(in: ["/usr/bin/python3", "-m", "http.server"]) == nil)
        #expect(Interpreter.scriptOperand(in: ["/bin/sh", "-c", "exec app"]) == nil)
        #expect(Interpreter.scriptOperand(in: ["/usr/bin/perl", "-e", "1"]) == nil)
        #expect(Interpreter.scriptOperand(in: ["/usr/bin/node"]) == nil)
    }

    @Test func aShebangLineNamesTheInterpreterAndOneArgument() {
        let plain = Interpreter.shebang(of: Array("#!/usr/bin/python3\nprint(1)\n".utf8))
        #expect(plain?.interpreter == "/usr/bin/python3" && plain?.argument == nil)
        let env = Interpreter.shebang(of: Array("#! /usr/bin/env  python3 -u \n".utf8))
        #expect(env?.interpreter == "/usr/bin/env" && env?.argument == "python3 -u")
        #expect(Interpreter.shebang(of: Array("\u{7f}ELF".utf8)) == nil)
        #expect(Interpreter.shebang(of: Array("#!\n".utf8)) == nil)
        #expect(Interpreter.withoutVersion("python3.11") == "python")
        #expect(Interpreter.withoutVersion("lua5.4") == "lua")
        #expect(Interpreter.withoutVersion("node") == "node")
    }
}
