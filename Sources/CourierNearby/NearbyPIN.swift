import CourierNames

/// The PIN of PIN mode: how many wrong ones a receiver takes, and one long enough that they are
/// no real chance to guess it.
///
/// A receiver takes ``budget`` wrong PINs in all (from every address together) and then none until
/// it is restarted, so an attacker gets ``budget`` guesses per run of `receive`. A generated PIN has
/// ``generatedLength`` decimal digits: ten guesses among 10^8 PINs succeed with a chance of one in
/// ten million. Digits, because LocalSend apps ask for the PIN on phones too.
public enum NearbyPIN {
    /// Wrong PINs a receiver takes before it stops accepting PINs.
    public static let budget = 10
    /// Digits of a generated PIN.
    public static let generatedLength = 8
    /// Shorter PINs are accepted, with a warning saying what the budget leaves an attacker.
    public static let recommendedLength = generatedLength

    /// A fresh PIN from the system's random source.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<generatedLength).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }

    /// Why `pin` cannot be a PIN (empty, longer than 64 characters, unclean text), or nil.
    public static func problem(with pin: String) -> String? {
        if pin.isEmpty || pin.count > 64 { return "must be 1 to 64 characters" }
        if let unclean = CleanText.firstUnclean(in: pin) { return "must be printable text; it has \(unclean) at character \(unclean.offset + 1)" }
        return nil
    }

    /// For a PIN shorter than recommended, what an attacker's budget of guesses could do; nil
    /// otherwise.
    public static func weakness(of pin: String) -> String? {
        guard pin.count < recommendedLength else { return nil }
        let alphabet = pin.allSatisfy(\.isASCIIDigit) ? "digits" : "characters"
        return "a PIN of \(pin.count) \(alphabet) is short: the \(budget) wrong PINs this receiver takes could guess it"
            + (alphabet == "digits" ? " with a chance of 1 in \(max(1, Self.power(10, pin.count) / budget))" : "")
            + "; use --generate-pin for one of \(generatedLength) digits"
    }

    private static func power(_ base: Int, _ exponent: Int) -> Int { (0..<exponent).reduce(1) { result, _ in result * base } }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
