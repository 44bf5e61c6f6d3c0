import ArgumentParser
import CourierBroker

/// The termination policies (docs/lifecycle.md) as options; each option wins over its key in
/// courierd.conf (`LifecycleConfigFile`).
struct TerminationOptions: ParsableArguments {
    @Option(name: .long, help: "Terminate an app Courier launched once it has been idle this many seconds (default: off; also idle-timeout in $XDG_CONFIG_HOME/courier/courierd.conf). A manifest opts out with CourierTerminatesWhenIdle = false.")
    var idleTimeout: Double?

    @Option(name: .long, help: "Under memory pressure (PSI 'some avg10' in /proc/pressure/memory at or above this percent), terminate the least recently used idle apps (default: off; also memory-pressure in courierd.conf).")
    var memoryPressure: Double?

    @Option(name: .long, help: "Seconds an app has to answer WillTerminate (and save its state) before SIGTERM (default 5; also termination-notice in courierd.conf).")
    var terminationNotice: Double?

    func validate() throws {
        for (name, value) in [("--idle-timeout", idleTimeout), ("--memory-pressure", memoryPressure), ("--termination-notice", terminationNotice)] {
            if let value, !(value >= 0 && value.isFinite) {
                throw ValidationError("\(name) must be a number ≥ 0 (got \(value))")
            }
        }
    }

    /// The policy these options and `file` set; an idle timeout of 0 is off.
    func policy(over file: LifecycleConfigFile) -> TerminationPolicy {
        var termination = TerminationPolicy()
        if let seconds = idleTimeout ?? file.idleTimeout, seconds > 0 { termination.idleTimeout = .milliseconds(Int64(seconds * 1000)) }
        if let percent = memoryPressure ?? file.memoryPressure { termination.memoryPressure = MemoryPressurePolicy(threshold: percent) }
        if let seconds = terminationNotice ?? file.terminationNotice { termination.noticeDeadline = .milliseconds(Int64(seconds * 1000)) }
        return termination
    }
}
