public import CourierURL
public import FoundationEssentials

extension LocalDateTime {
    /// The wall-clock time of `date` in `timeZone` (seconds dropped when `minutes` is true).
    /// Instants outside the years 0001–9999 are clamped to the nearest end of that range.
    public init(_ date: Date, timeZone: TimeZone = .current, minutes: Bool = true) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.era, .year, .month, .day, .hour, .minute, .second], from: date)
        let year = c.era == 0 ? 0 : c.year ?? 1
        do {
            if year < 1 {
                try self.init(year: 1, month: 1, day: 1)
            } else if year > 9999 {
                try self.init(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: minutes ? 0 : 59)
            } else {
                try self.init(
                    year: year, month: c.month ?? 1, day: c.day ?? 1, hour: c.hour ?? 0, minute: c.minute ?? 0,
                    second: minutes ? 0 : c.second ?? 0)
            }
        } catch {
            preconditionFailure("Foundation's Gregorian calendar produced an impossible date: \(error)")
        }
    }

    /// The instant of this wall-clock time in `timeZone`. A time skipped by a daylight-saving
    /// change resolves to the next valid instant (Foundation's rule).
    public func date(in timeZone: TimeZone = .current) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }
}

extension TodoURL.Due {
    /// The due time as local wall-clock time, with `.now` resolved at `now` in `timeZone` (through
    /// Foundation's calendar; `localDateTime()` reads the current local time without it).
    public func localDateTime(now: Date, timeZone: TimeZone = .current) -> LocalDateTime {
        switch self {
        case .now: LocalDateTime(now, timeZone: timeZone)
        case .at(let date): date
        }
    }
}
