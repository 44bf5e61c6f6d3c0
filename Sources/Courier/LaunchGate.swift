/// Holds incoming URLs until the delegate's launch methods have run, so `open` never runs before
/// `didFinishLaunching` (the broker may deliver right after `CheckIn` replies).
actor LaunchGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        // Usually no URL is waiting yet: then the array of continuations is never touched (its
        // first use sets up its generic type at run time, ~0.2 M instructions at start-up).
        if waiters.isEmpty { return }
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }
}
