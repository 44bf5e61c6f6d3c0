import CourierProtocol
import DBus
import Foundation
import Testing

/// docs/dbus-api/*.xml is generated from the declaration (scripts/dbus-api-xml runs this suite with
/// COURIER_WRITE_DBUS_API=1). CourierDesktopTests' DBusAPIDocumentationTests compares the same files
/// with what `gdbus introspect` says of a live broker and app, so declaration, documentation and
/// the served objects agree.
struct IntrospectionDocumentTests {
    static let folder = ProtocolSpellingTests.repository.appendingPathComponent("docs/dbus-api")

    /// The documents and the interfaces each describes, in the order the object serves them.
    static let documents: [(file: String, interfaces: [ProtocolInterface])] = [
        ("org.courier.Broker.xml", [Broker1.interface]),
        ("application.xml", [Application1.interface, FreedesktopApplication.interface]),
        ("org.courier.BrokerLink1.xml", [BrokerLink1.interface]),
    ]

    @Test(arguments: documents.map(\.file))
    func committedIntrospectionIsTheDeclaration(file: String) throws {
        let interfaces = try #require(Self.documents.first { $0.file == file }).interfaces
        let generated = DBusInterface.introspectionXML(interfaces.map(\.forIntrospection))
        let path = Self.folder.appendingPathComponent(file)
        if ProcessInfo.processInfo.environment["COURIER_WRITE_DBUS_API"] == "1" {
            try generated.write(to: path, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOf: path, encoding: .utf8)
        #expect(committed == generated, "docs/dbus-api/\(file) differs from the declaration in CourierProtocol: run scripts/dbus-api-xml")
    }

    /// A served interface that leaves out a declared method is refused where it is built.
    @Test func everyDeclaredMethodIsServed() async {
        await #expect(processExitsWith: .failure) {
            _ = BrokerLink1.interface.serving([])
        }
    }
}
