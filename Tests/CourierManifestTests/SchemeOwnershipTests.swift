import CourierNames
import CourierManifest
import Testing

/// What the desktop is told each app owns (`Registry.schemeOwnerships`).
@Suite struct SchemeOwnershipTests {
    static func registry(_ manifests: [Manifest]) throws -> Registry {
        var registry = Registry()
        for manifest in manifests { _ = try registry.register(manifest) }
        return registry
    }

    @Test func onlyOwnedSchemesGoToTheDesktopNeverReservedOrLostOnes() throws {
        let todolist = Manifest(
            bundleIdentifier: try BundleIdentifier("com.acme.todolist"), name: "Todo List",
            urlTypes: [URLTypeDeclaration(schemes: ["todolist"])], path: "/m/todolist.plist")
        let tasks = Manifest(
            bundleIdentifier: try BundleIdentifier("org.example.tasks"), name: "Tasks",
            urlTypes: [URLTypeDeclaration(schemes: ["tasks", "todolist"]), URLTypeDeclaration(schemes: ["mailto", "https"])], path: "/m/tasks.plist")
        let apps = try Self.registry([todolist, tasks]).schemeOwnerships()
        #expect(apps.map(\.bundleIdentifier) == ["com.acme.todolist", "org.example.tasks"])
        #expect(apps.map(\.schemes) == [["todolist"], ["tasks"]])
        #expect(apps.map(\.name) == ["Todo List", "Tasks"])
    }
}
