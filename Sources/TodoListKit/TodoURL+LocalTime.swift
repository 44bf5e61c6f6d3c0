public import CourierURL
#if canImport(Glibc)
import Glibc
#endif

extension TodoURL.Due {
    /// The due time as local wall-clock time, `.now` read from the C library (`time`,
    /// `localtime_r`: `TZ`, else /etc/localtime — the zone Foundation's `TimeZone.current` reads).
    /// What the app calls for every URL: Foundation's `Calendar` would load ICU on the app's first
    /// URL, a cold open's critical path (docs/PERFORMANCE.md, "Cold open"). Years are clamped to
    /// 0001–9999 like `LocalDateTime(_:timeZone:)`'s.
    public func localDateTime() -> LocalDateTime {
        switch self {
        case .at(let date): return date
        case .now:
            var seconds = time(nil)
            var parts = tm()
            guard localtime_r(&seconds, &parts) != nil else { preconditionFailure("localtime_r failed for the current time") }
            let year = min(max(Int(parts.tm_year) + 1900, 1), 9999)
            do {
                return try LocalDateTime(year: year, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday), hour: Int(parts.tm_hour), minute: Int(parts.tm_min))
            } catch {
                preconditionFailure("the C library's local time is not a date: \(error)")
            }
        }
    }
}
