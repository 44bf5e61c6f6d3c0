import Courier

/// `courier-test-app echo`: the README's app-developer example as a product the tests can launch —
/// `Application.run(delegate:)`, printing each URL and who asked on standard output (which the
/// broker appends to the app's log).
enum EchoApp {
    struct Delegate: ApplicationDelegate {
        func open(_ url: String, options: OpenURLOptions, application: Application) async -> Bool {
            print("opened \(url) from '\(options.sourceApplication)'")
            return true
        }
    }

    static func run() async -> Never {
        await Application.run(delegate: Delegate())
    }
}
