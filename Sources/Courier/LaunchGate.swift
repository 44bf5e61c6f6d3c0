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
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }
}
