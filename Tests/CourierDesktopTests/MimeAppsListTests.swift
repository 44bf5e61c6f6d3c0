import Testing
import CourierDesktop

@Suite struct MimeAppsListTests {
    static let ours = "courier-com.acme.todolist.desktop"
    static let type = "x-scheme-handler/todolist"

    static let userFile = """
        # my defaults, keep this comment
        [Default Applications]
        text/html=firefox.desktop
        x-scheme-handler/https=firefox.desktop;chromium.desktop;
        x-scheme-handler/todolist = other-todo.desktop
        \("")
        [Added Associations]
        text/html=firefox.desktop;
        \("")
        [Removed Associations]
        x-scheme-handler/todolist=\(ours);

        """

    @Test func preferringAndRemovingRestoresEveryByte() {
        var list = MimeAppsList(text: Self.userFile)
        for group in MimeAppsList.Group.allCases { list.prefer(Self.ours, for: Self.type, in: group) }
        #expect(list.desktopIDs(for: Self.type, in: .defaultApplications) == [Self.ours, "other-todo.desktop"])
        #expect(list.desktopIDs(for: Self.type, in: .addedAssociations) == [Self.ours])
        #expect(list.text.contains("x-scheme-handler/todolist =\(Self.ours); other-todo.desktop\n"))
        #expect(list.text.contains("text/html=firefox.desktop;\nx-scheme-handler/todolist=\(Self.ours);\n\n[Removed"))
        #expect(list.text.contains("[Removed Associations]\nx-scheme-handler/todolist=\(Self.ours);\n"))
        for group in MimeAppsList.Group.allCases { list.remove(Self.ours, for: Self.type, in: group) }
        #expect(list.text == Self.userFile)
    }

    @Test func missingGroupsAreAppendedLikeGioAndRemovedCompletely() {
        let original = "[Other]\nkey=value\n"
        var list = MimeAppsList(text: original)
        for group in MimeAppsList.Group.allCases { list.prefer(Self.ours, for: Self.type, in: group) }
        #expect(list.text == """
            [Other]
            key=value

            [Default Applications]
            \(Self.type)=\(Self.ours)

            [Added Associations]
            \(Self.type)=\(Self.ours);

            """)
        for group in MimeAppsList.Group.allCases { list.remove(Self.ours, for: Self.type, in: group) }
        #expect(list.text == original)
    }

    @Test func emptyFileBecomesEmptyAgain() {
        var list = MimeAppsList(text: "")
        list.prefer(Self.ours, for: Self.type, in: .defaultApplications)
        list.prefer(Self.ours, for: Self.type, in: .addedAssociations)
        #expect(list.text.hasPrefix("[Default Applications]\n"))
        list.remove(Self.ours, for: Self.type, in: .defaultApplications)
        list.remove(Self.ours, for: Self.type, in: .addedAssociations)
        #expect(list.isEmpty)
    }

    @Test func preferringTwiceChangesNothing() {
        var list = MimeAppsList(text: Self.userFile)
        list.prefer(Self.ours, for: Self.type, in: .defaultApplications)
        let once = list.text
        list.prefer(Self.ours, for: Self.type, in: .defaultApplications)
        #expect(list.text == once)
    }

    @Test func otherTypesAreNeverListed() {
        var list = MimeAppsList(text: Self.userFile)
        list.prefer(Self.ours, for: Self.type, in: .defaultApplications)
        #expect(list.mimeTypes(listing: Self.ours, in: .defaultApplications) == [Self.type])
        #expect(list.desktopIDs(for: "text/html", in: .defaultApplications) == ["firefox.desktop"])
    }

    @Test func carriageReturnsAndMissingFinalNewlineSurviveAnEditElsewhere() {
        let original = "[Default Applications]\r\ntext/html=a.desktop\r\n[Added Associations]\r\nimage/png=b.desktop;"
        var list = MimeAppsList(text: original)
        list.prefer(Self.ours, for: Self.type, in: .defaultApplications)
        list.remove(Self.ours, for: Self.type, in: .defaultApplications)
        #expect(list.text == original)
    }

    @Test func notUTF8IsRejected() {
        #expect(MimeAppsList(bytes: [0x5B, 0xFF, 0x5D]) == nil)
    }
}
