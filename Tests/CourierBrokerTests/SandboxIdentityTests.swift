import CourierBroker
import Foundation
import Testing

/// The app a sandbox names, parsed from what the kernel shows of a process. Flatpak is tested end
/// to end with bubblewrap in SandboxBusTests; Snap and systemd units cannot be made here (no
/// systemd as PID 1, no snapd), so their rules are tested on recorded `/proc/PID/cgroup` contents.
@Suite("SandboxIdentity")
struct SandboxIdentityTests {
    @Test func aFlatpakInfoNamesItsApplication() {
        let info = """
            [Application]
            name=org.gnome.Epiphany
            runtime=runtime/org.gnome.Platform/x86_64/46

            [Instance]
            instance-id=1234567
            app-path=/var/lib/flatpak/app/org.gnome.Epiphany/x86_64/stable/abc/files
            """
        #expect(SandboxIdentity.flatpakApplication(info: info) == "org.gnome.Epiphany")
        // The key of another group is not the application's name; a name that is no app id is none.
        #expect(SandboxIdentity.flatpakApplication(info: "[Instance]\nname=org.evil.App\n") == nil)
        #expect(SandboxIdentity.flatpakApplication(info: "[Application]\nname=not an id\n") == nil)
        #expect(SandboxIdentity.flatpakApplication(info: "") == nil)
    }

    /// Recorded from Ubuntu 24.04 (cgroup v2) and 18.04 (v1) with Firefox as a snap.
    @Test func aSnapIsToldByItsCgroup() {
        let unified = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.firefox.firefox-2f9b5d41-7b1c-4e2c-8f0e-0a1b2c3d4e5f.scope\n"
        #expect(SandboxIdentity.snapName(cgroup: unified) == "firefox")
        let service = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.signal-desktop.signal-desktop.service\n"
        #expect(SandboxIdentity.snapName(cgroup: service) == "signal-desktop")
        let legacy = """
            12:pids:/user.slice/user-1000.slice/user@1000.service
            2:cpu,cpuacct:/user.slice
            1:name=systemd:/user.slice/user-1000.slice/user@1000.service/snap.vlc.vlc.1a2b3c.scope
            """
        #expect(SandboxIdentity.snapName(cgroup: legacy) == "vlc")
        #expect(SandboxIdentity.snapName(cgroup: "0::/user.slice/user-1000.slice/session-2.scope\n") == nil)
        #expect(SandboxIdentity.snapName(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-snapper-1234.scope\n") == nil)
    }

    /// Unit names from systemd.io/DESKTOP_ENVIRONMENTS and xdg-desktop-portal's own cases.
    @Test func aSystemdAppUnitNamesAnAppButIsNoSandbox() {
        #expect(SandboxIdentity.systemdApplication(unit: "app-gnome-org.gnome.Epiphany-182352.scope") == "org.gnome.Epiphany")
        #expect(SandboxIdentity.systemdApplication(unit: "app-org.gnome.Epiphany-182352.scope") == "org.gnome.Epiphany")
        #expect(SandboxIdentity.systemdApplication(unit: #"app-gnome-org.gnome.Evolution\x2dalarm\x2dnotify-2437.scope"#) == "org.gnome.Evolution-alarm-notify")
        #expect(SandboxIdentity.systemdApplication(unit: "app-KDE-org.kde.okular@12345.service") == "org.kde.okular")
        #expect(SandboxIdentity.systemdApplication(unit: "app-org.kde.amarok.service") == "org.kde.amarok")
        #expect(SandboxIdentity.systemdApplication(unit: "app-gnome-org.gnome.Calendar-autostart.service") == "org.gnome.Calendar")
        #expect(SandboxIdentity.systemdApplication(unit: "app-not-a-well-formed-unit-name") == nil)
        #expect(SandboxIdentity.systemdApplication(unit: "session-2.scope") == nil)
        let cgroup = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-4242.scope\n"
        #expect(SandboxIdentity.systemdApplication(cgroup: cgroup) == "org.gnome.Terminal")
        #expect(SandboxIdentity.systemdApplication(cgroup: "0::/user.slice/user-1000.slice/session-2.scope\n") == nil)
    }

    @Test func aSandboxedProcessIsOnlyTheAppWhoseManifestLaunchesThatSandbox() {
        let flatpak = SandboxIdentity.flatpak(application: "org.acme.Notes")
        #expect(flatpak.mayBe("org.acme.Notes", launchedBy: ["/usr/bin/flatpak", "run", "org.acme.Notes"]))
        #expect(!flatpak.mayBe("org.acme.Notes", launchedBy: ["/usr/bin/notes"]))
        #expect(!flatpak.mayBe("org.acme.Other", launchedBy: ["/usr/bin/flatpak", "run", "org.acme.Notes"]))
        #expect(!SandboxIdentity.flatpak(application: nil).mayBe("org.acme.Notes", launchedBy: ["/usr/bin/flatpak", "run", "org.acme.Notes"]))
        let snap = SandboxIdentity.snap(name: "firefox")
        #expect(snap.mayBe("org.mozilla.firefox", launchedBy: ["/snap/bin/firefox"]))
        #expect(snap.mayBe("org.mozilla.firefox", launchedBy: ["/usr/bin/snap", "run", "firefox.geckodriver"]))
        #expect(!snap.mayBe("org.mozilla.firefox", launchedBy: ["/usr/bin/firefox"]))
        #expect(!snap.mayBe("org.videolan.vlc", launchedBy: ["/snap/bin/vlc"]))
    }

    @Test func thisTestRunsInNoSandbox() {
        #expect(SandboxIdentity.of(pid: getpid()) == nil)
    }
}
