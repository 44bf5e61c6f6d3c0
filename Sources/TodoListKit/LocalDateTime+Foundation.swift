public import CourierURL
public import Foundation

extension LocalDateTime {
    /// The wall-clock time of `date` in `timeZone` (seconds dropped when `minutes` is true).
    public init(_ date: Date, timeZone: TimeZone = .current, minutes: Bool = true) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        try! self.init(
            year: c.year!, month: c.month!, day: c.day!, hour: c.hour!, minute: c.minute!,
            second: minutes ? 0 : c.second!)
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
    /// The due time as local wall-clock time, with `.now` resolved at `now`.
    public func localDateTime(now: Date = Date(), timeZone: TimeZone = .current) -> LocalDateTime {
        switch self {
        case .now: LocalDateTime(now, timeZone: timeZone)
        case .at(let date): date
        }
    }
}
