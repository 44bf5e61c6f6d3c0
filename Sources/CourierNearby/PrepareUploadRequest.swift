/// `POST /api/localsend/v2/prepare-upload` (protocol v2, section 4.1): who sends, and what.
public struct PrepareUploadRequest: Codable, Sendable {
    public var info: NearbyDevice
    /// Keyed by file id (each value's `id` repeats its key).
    public var files: [String: NearbyFile]

    public init(info: NearbyDevice, files: [String: NearbyFile]) {
        self.info = info
        self.files = files
    }
}

/// The answer to an accepted `prepare-upload`: the session, and one token per accepted file id.
public struct PrepareUploadResponse: Codable, Sendable {
    public var sessionId: String
    public var files: [String: String]

    public init(sessionId: String, files: [String: String]) {
        self.sessionId = sessionId
        self.files = files
    }
}
