import Testing
@testable import CourierDesktop

@Suite struct DesktopExecTests {
    @Test func plainCommandIsWrittenAsIsWithFieldCodeAfterDoubleDash() throws {
        let exec = try DesktopExec(command: ["/usr/bin/courier", "open", "--desktop-entry"])
        #expect(exec.unescapedValue == "/usr/bin/courier open --desktop-entry -- %u")
        #expect(exec.isSafeForXDGOpen)
    }

    @Test func reservedCharactersAreQuotedAndEscapedPerSpecification() throws {
        let exec = try DesktopExec(command: ["/opt/My Apps/cour$ier", "a\"b", "back\\slash", "100%", ""])
        #expect(exec.unescapedValue == #""/opt/My Apps/cour\$ier" "a\"b" "back\\slash" 100%% "" -- %u"#)
        #expect(!exec.isSafeForXDGOpen)
    }

    @Test func relativeCommandIsRefused() {
        #expect(throws: DesktopIntegrationError.relativeExecutable("courier")) {
            try DesktopExec(command: ["courier", "open"])
        }
    }

    @Test func entryAppliesStringEscapesOnTopOfExecQuoting() throws {
        let app = try DesktopApp(bundleIdentifier: "com.acme.todolist", name: "To\\do\nList", schemes: ["ToDoList"])
        let exec = try DesktopExec(command: ["/a b/courier", "x\\y"])
        let text = DesktopEntry(app: app, exec: exec).text
        #expect(text.contains(#"Exec="/a b/courier" "x\\\\y" -- %u"#))
        #expect(text.contains(#"Name=To\\do\nList"#))
        #expect(text.contains("MimeType=x-scheme-handler/todolist;\n"))
        #expect(DesktopEntry.courierBundleIdentifier(in: text) == "com.acme.todolist")
    }
}

@Suite struct DesktopAppTests {
    @Test func schemesAreLowercasedAndDeduplicated() throws {
        let app = try DesktopApp(bundleIdentifier: "com.acme.todolist", name: " ", schemes: ["TodoList", "todolist", "todo+x.y-z"])
        #expect(app.schemes == ["todolist", "todo+x.y-z"])
        #expect(app.name == "com.acme.todolist")
        #expect(app.desktopFileID == "courier-com.acme.todolist.desktop")
    }

    @Test(arguments: ["", "../evil", "com/acme", "com..acme", ".com", "com.-x", "a b", "com.acme\n"])
    func bundleIdentifiersThatCouldNameAPathAreRefused(_ id: String) {
        #expect(throws: DesktopIntegrationError.invalidBundleIdentifier(id)) {
            try DesktopApp(bundleIdentifier: id, name: "x", schemes: [])
        }
    }

    @Test(arguments: ["", "1abc", "to do", "a=b", "text/html", "x\n"])
    func invalidSchemesAreRefused(_ scheme: String) {
        #expect(throws: DesktopIntegrationError.invalidScheme(scheme)) {
            try DesktopApp(bundleIdentifier: "com.acme.x", name: "x", schemes: [scheme])
        }
    }
}
