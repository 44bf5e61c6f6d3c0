extension Application {
    /// Shares `items` (docs/share.md): the broker lists the activities that fit every item, the
    /// person chooses — through `chooser`, by default on this process's terminal, else in a
    /// desktop notification (`NotificationShareChooser`); "Save to…" without a folder asks the
    /// desktop portal's folder dialog (`PortalFolderChooser`) —, and the choice runs; returns what ran
    /// and where the items went. Refusals: `NoActivity`, `Dismissed`, `NobodyToAsk` (neither a
    /// terminal nor a notification server with actions: pass a chooser), `Declined` (the app or device
    /// said no), `InvalidFile` (a file removed before the choice), `Failed` (a lazy item failed).
    ///
    /// ```swift
    /// let outcome = try await application.share([.text("Buy milk")], excluding: ["copy"])
    /// ```
    public func share(_ items: [ShareItem], excluding excluded: [String] = [], chooser: (any ShareChooser)? = nil) async throws(CourierError) -> ShareOutcome {
        let sheet = ShareSheet(items: items, excluding: excluded, broker: broker)
        let asking: any ShareChooser
        if let chooser { asking = chooser } else { asking = try await sheet.personalChooser() }
        return try await sheet.run(chooser: asking)
    }
}

extension ShareSheet {
    /// The chooser where the person is: the terminal; else a notification with actions on the
    /// session bus the sheet's broker client is on (`NotificationShareChooser`); else
    /// `NobodyToAsk`, saying why.
    public func personalChooser() async throws(CourierError) -> any ShareChooser {
        if TerminalShareChooser.isAvailable { return TerminalShareChooser() }
        return try await NotificationShareChooser.onDesktop(broker)
    }
}
