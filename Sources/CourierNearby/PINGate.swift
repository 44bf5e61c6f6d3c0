import Synchronization

/// The PIN check of a receiver in PIN mode and of a link share: wrong PINs are counted for the
/// holder as a whole, never per address (an attacker on the network has as many source addresses
/// as it likes: all of 127.0.0.0/8 locally, a /64 on an IPv6 LAN). After each wrong PIN no PIN from
/// anyone is checked for `backoff` (429); after `budget` wrong PINs none is accepted (403) until the
/// holder is started again, and `onSpent` is called once, with the address of the last guess.
final class PINGate: Sendable {
    let pin: String
    let budget: Int
    let backoff: Duration
    /// "this receiver", "this share": who refuses, in the messages.
    private let holder: String
    private let onSpent: (@Sendable (String) -> Void)?
    private let state = Mutex<(failures: Int, last: ContinuousClock.Instant?)>((0, nil))

    init(pin: String, budget: Int = NearbyPIN.budget, backoff: Duration = .seconds(1), holder: String,
         onSpent: (@Sendable (_ address: String) -> Void)? = nil) {
        self.pin = pin
        self.budget = budget
        self.backoff = backoff
        self.holder = holder
        self.onSpent = onSpent
    }

    /// Wrong PINs tried so far, from every address together.
    var failures: Int { state.withLock { $0.failures } }

    /// Lets `given` through when it is the PIN; else 401 (missing or wrong), 429 (within the
    /// back-off of the last wrong one) or 403 (the budget is spent).
    func check(_ given: String?, from address: String) throws(NearbyError) {
        var spent = false
        defer { if spent { onSpent?(address) } }
        try state.withLock { (state) throws(NearbyError) in
            guard state.failures < budget else {
                throw .rejected("\(holder) accepts no more PINs: \(budget) wrong PINs were tried; its user must restart it")
            }
            guard let given, !given.isEmpty else { throw NearbyError(401, "PIN required: \(holder) asks for its PIN (?pin=…)") }
            if let last = state.last, ContinuousClock.now - last < backoff {
                throw NearbyError(429, "a wrong PIN was tried less than \(backoff) ago; try again in a moment")
            }
            guard Self.constantTimeEqual(given, pin) else {
                state.failures += 1
                state.last = .now
                spent = state.failures == budget
                throw NearbyError(401, "wrong PIN")
            }
        }
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
