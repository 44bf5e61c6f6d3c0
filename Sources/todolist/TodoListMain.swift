#if canImport(Glibc)
import Glibc
#endif

/// `todolist` as the broker launches it (no arguments, or `run`) starts the app at once; anything
/// else goes through ArgumentParser (`TodoListCommand`). ArgumentParser finds its commands and
/// options by reflection — dynamic casts, each of which searches the protocol conformances of the
/// whole executable on first use — which is most of a cold launch's CPU before `CheckIn` once the
/// Swift runtime and Foundation are linked in (docs/PERFORMANCE.md, "Cold open").
@main
enum TodoListMain {
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.isEmpty || arguments.elementsEqual(["run"]) {
            exit(await RunCommand.serve(bundleID: nil) ? 0 : 1)
        }
        await TodoListCommand.main()
    }
}
