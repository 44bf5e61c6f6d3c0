extension Application {
    /// Shares `items` (docs/share.md): the broker lists the activities that fit every item, the
    /// person chooses — through `chooser`, by default on this process's terminal —, and the
    /// choice runs; returns what ran and where the items went. Refusals: `NoActivity`,
    /// `Dismissed`, `NobodyToAsk` (no terminal: pass a chooser), `Declined` (the app or device
    /// said no), `InvalidFile` (a file removed before the choice), `Failed` (a lazy item failed).
    ///
    /// ```swift
    /// let outcome = try await application.share([.text("Buy milk")], excluding: ["copy"])
    /// ```
    public func share(_ items: [ShareItem], excluding excluded: [String] = [], chooser: (any ShareChooser)? = nil) async throws(CourierError) -> ShareOutcome {
        let sheet = ShareSheet(items: items, excluding: excluded, broker: broker)
        let asking: any ShareChooser
        if let chooser { asking = chooser } else { asking = try ShareSheet.personalChooser() }
        return try await sheet.run(chooser: asking)
    }
}

extension ShareSheet {
    /// The chooser where the person is: the terminal; else `NobodyToAsk`.
    public static func personalChooser() throws(CourierError) -> any ShareChooser {
        guard TerminalShareChooser.isAvailable else { throw nobodyToAsk }
        return TerminalShareChooser()
    }

    /// No terminal and no desktop to ask on.
    public static let nobodyToAsk = CourierError(.nobodyToAsk, "nobody can be asked to choose an activity: there is no terminal and no desktop notification server; name one with --activity ID (list them with --list)")
}
