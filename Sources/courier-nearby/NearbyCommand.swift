import ArgumentParser

/// `courier-nearby` (run as `courier nearby …`): AirDrop between devices over LocalSend protocol v2.
/// Its own process, so that `courierd` never listens on the network (docs/nearby.md).
@main
struct NearbyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier nearby",
        abstract: "Receive files from and send files to nearby devices (LocalSend protocol v2).",
        discussion: "Nothing listens on the network until you run `courier nearby receive`. See docs/nearby.md.",
        subcommands: [
            ReceiveCommand.self,
            SendCommand.self,
            ServeCommand.self,
            ScanCommand.self,
            TrustCommand.self,
            UntrustCommand.self,
            ListCommand.self,
        ]
    )
}
