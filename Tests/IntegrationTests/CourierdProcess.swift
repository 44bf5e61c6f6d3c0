import BusTestSupport
import Courier
import Foundation
import CourierTools

/// The built `courierd` as a real process (its output in `folder`/courierd.out and .err), started
/// with `arguments` and `environment`; returns once `client` sees it own org.courier.Broker, or it
/// has exited, or 10 s have passed (the test's own expectations say which).
func startCourierd(_ arguments: [String], environment: [String: String], outputIn folder: URL,
                   client: BrokerToolClient) async throws -> BackgroundProcess {
    let courierd = try BackgroundProcess(Products.path("courierd"), arguments, environment: environment,
                                         outputIn: folder, name: "courierd")
    for _ in 0..<500 where await !client.brokerIsRunning() && courierd.exitStatus == nil {
        try? await Task.sleep(for: .milliseconds(20))
    }
    return courierd
}
