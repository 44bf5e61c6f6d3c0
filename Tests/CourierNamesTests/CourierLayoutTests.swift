import CourierNames
import Testing

/// The one layout: every path Courier uses, from one environment by one rule.
@Suite struct CourierLayoutTests {
    @Test func folderSearchFollowsFlagsThenEnvironmentThenXDG() {
        let env = ["HOME": "/home/u", "XDG_DATA_DIRS": "/opt/share:/usr/share"]
        let layout = CourierLayout(environment: env)
        #expect(layout.manifestFolders().folders == ["/home/u/.local/share/courier/manifests", "/opt/share/courier/manifests", "/usr/share/courier/manifests"])
        #expect(layout.manifestFolders().explicit == false)
        #expect(layout.configFolder == "/home/u/.config/courier")
        var withPath = env
        withPath["COURIER_MANIFEST_PATH"] = "/a:/b"
        withPath["XDG_CONFIG_HOME"] = "/cfg"
        #expect(CourierLayout(environment: withPath).manifestFolders().folders == ["/a", "/b"])
        #expect(CourierLayout(environment: withPath).manifestFolders(explicit: ["/c"]).folders == ["/c"])
        #expect(CourierLayout(environment: withPath).configFolder == "/cfg/courier")
    }

    @Test func registrationGoesWhereTheBrokerOfTheSameEnvironmentReads() {
        let plain = CourierLayout(environment: ["HOME": "/home/u"])
        #expect(plain.registrationFolder == "/home/u/.local/share/courier/manifests")
        #expect(plain.manifestFolders().folders.first == plain.registrationFolder)
        let custom = CourierLayout(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data", "COURIER_MANIFEST_PATH": "/m1:/m2"])
        #expect(custom.registrationFolder == "/m1")
        #expect(custom.manifestFolders().folders.contains(custom.registrationFolder))
        let xdg = CourierLayout(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data"])
        #expect(xdg.registrationFolder == "/data/courier/manifests")
        #expect(xdg.manifestFolders().folders.first == xdg.registrationFolder)
    }

    @Test func relativeXDGValuesAreIgnoredAsTheSpecificationSays() {
        let layout = CourierLayout(environment: [
            "HOME": "/home/u", "XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "", "XDG_STATE_HOME": "./s",
            "XDG_DATA_DIRS": "rel:/abs",
        ])
        #expect(layout.dataHome == "/home/u/.local/share")
        #expect(layout.configHome == "/home/u/.config")
        #expect(layout.stateFolder == "/home/u/.local/state/courier")
        #expect(layout.dataDirectories == ["/abs"])
        #expect(layout.mimeFolders == ["/home/u/.local/share/mime", "/abs/mime"])
        #expect(CourierLayout(environment: ["HOME": "/h", "XDG_DATA_DIRS": ""]).dataDirectories == ["/usr/local/share", "/usr/share"])
    }

    @Test func aRelativeOrMissingHomeFallsBackToTheUserDatabase() {
        let missing = CourierLayout(environment: [:])
        #expect(missing.home.hasPrefix("/"))
        #expect(CourierLayout(environment: ["HOME": "relative"]).home == missing.home)
        #expect(missing.dataHome == (missing.home == "/" ? "/.local/share" : missing.home + "/.local/share"))
    }

    @Test func containersAndInboxes() throws {
        let app = try BundleIdentifier("com.8bit.bitwarden")
        let layout = CourierLayout(environment: ["HOME": "/home/u"])
        #expect(layout.containersRoot == "/home/u/.local/share/courier/containers")
        #expect(layout.container(for: app) == "/home/u/.local/share/courier/containers/com.8bit.bitwarden")
        #expect(layout.inbox(for: app) == "/home/u/.local/share/courier/containers/com.8bit.bitwarden/Documents/Inbox")
        #expect(CourierLayout.inboxComponents(for: app) == ["com.8bit.bitwarden", "Documents", "Inbox"])
        #expect(layout.appContainer(for: app) == layout.container(for: app))
        let launched = CourierLayout(environment: ["HOME": "/home/u", "COURIER_CONTAINER": "/given/c"])
        #expect(launched.appContainer(for: app) == "/given/c")
        #expect(launched.container(for: app) == layout.container(for: app), "the broker's own paths ignore COURIER_CONTAINER")
    }

    @Test func desktopFiles() {
        let layout = CourierLayout(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg"])
        #expect(layout.applications == "/home/u/.local/share/applications")
        #expect(layout.mimeAppsList == "/cfg/mimeapps.list")
    }

    @Test func theProcessEnvironmentIsReadWithoutFoundation() {
        let environment = CourierLayout.processEnvironment()
        #expect(environment["PATH"] != nil)
        #expect(CourierLayout.current() == CourierLayout(environment: environment))
    }
}
