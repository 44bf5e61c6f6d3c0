import BusTestSupport
import Courier
import Foundation
import Testing

/// The broker's registry queries (`HandlersForFile`, `ExplainHandlersForURL`, `Dump`, `SetDefault`)
/// from a client nobody here wrote: python-dbus, descriptors as `h`, against a real `courierd`
/// with the older apps' manifests and real files.
@Suite("Registry queries on a private bus", .serialized)
struct RegistryQueriesBusTests {
    @Test func aPythonClientGetsTheTypeAndTheAppsAsADropWould() async throws {
        let setup = try await OpenDocumentsTests.Setup()
        defer { setup.tearDown() }
        let script = PythonPeers.path("handlers_for_file.py")
        let result = try await BackgroundProcess.run("/usr/bin/python3", [script, setup.path("photo.txt")], environment: setup.environment)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            public.plain-text \(OpenDocumentsTests.wrangler)
            public.png \(OpenDocumentsTests.xee)
            public.png \(OpenDocumentsTests.xee)
            com.adobe.pdf \(OpenDocumentsTests.skim)
            org.courier.Error.NotPermitted
            org.courier.Error.NoHandler
            org.courier.Error.InvalidArguments
            org.courier.Error.InvalidArguments
            org.courier.Error.InvalidArguments
            public.plain-text \(OpenDocumentsTests.wrangler)
            org.courier.Error.InvalidArguments
            0 True

            """, "\(result.output)")
        // Still serving.
        #expect(try await setup.client.handlers(for: "nosuchscheme:x").isEmpty)
    }
}
