/// A wall-clock date and time in the proleptic Gregorian calendar, with no time zone: what a
/// user wrote (`200806231300` is 23 June 2008, 13:00, wherever the reader is).
///
/// It can only hold real times: no 30 February, no hour 24, no minute or second 60.
/// Conversion to an instant (with the local time zone) is left to the caller, who knows it.
public struct LocalDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int

    /// Why a set of fields is not a real date and time.
    public struct InvalidDate: Error, Sendable, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Validates the fields.
    /// - Throws: ``InvalidDate`` saying which field is out of range and why.
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) throws(InvalidDate) {
        guard (1...9999).contains(year) else {
            throw InvalidDate(reason: "year \(year) is outside 0001–9999")
        }
        guard (1...12).contains(month) else {
            throw InvalidDate(reason: "month \(month) does not exist (months are 01–12)")
        }
        let days = LocalDateTime.daysIn(month: month, year: year)
        guard (1...days).contains(day) else {
            let monthName = LocalDateTime.monthNames[month - 1]
            throw InvalidDate(
                reason: day == 0
                    ? "day 00 does not exist (days start at 01)"
                    : "\(day) \(monthName) \(year) does not exist (\(monthName) \(year) has \(days) days)")
        }
        guard (0...23).contains(hour) else {
            throw InvalidDate(reason: "hour \(hour) does not exist on a 24-hour clock (hours are 00–23; midnight is 00 of the next day)")
        }
        guard (0...59).contains(minute) else {
            throw InvalidDate(reason: "minute \(minute) does not exist (minutes are 00–59)")
        }
        guard (0...59).contains(second) else {
            throw InvalidDate(reason: "second \(second) does not exist (seconds are 00–59)")
        }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    /// Gregorian leap years: every 4th year, except centuries, except every 400th year
    /// (2000 and 2024 are leap years, 1900 is not).
    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// The number of days in `month` of `year`.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `2008-06-23T13:00` (minutes precision), or `2008-06-23T13:00:05` when seconds are set.
    public var description: String {
        let base = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2))"
        return second == 0 ? base : base + ":\(pad(second, 2))"
    }

    /// `2008-06-23T13:00`, always minutes precision.
    public var minutesDescription: String {
        "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2))"
    }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        (lhs.year, lhs.month, lhs.day, lhs.hour, lhs.minute, lhs.second)
            < (rhs.year, rhs.month, rhs.day, rhs.hour, rhs.minute, rhs.second)
    }
}

/// `value` as decimal digits, left-padded with zeros to `width`.
func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
