import CourierTypes
public import CourierURL

/// The bridge between a manifest's `CourierURLFormat` value and the parser module's ``URLFormat``
/// (docs/url-format.md): the loader checks the value with `URLFormat(propertyList:)`, so an invalid
/// format is a diagnostic naming its key path, and consumers (the broker) get the typed format.
public enum ManifestURLFormat {
    /// nil when `value` is a valid URL format, else what is wrong.
    @Sendable public static func validate(_ value: PropertyListValue) -> URLFormatError? {
        do {
            _ = try URLFormat(propertyList: value.foundationValue)
            return nil
        } catch {
            return error
        }
    }
}

extension Manifest {
    /// The app's URL format (`CourierURLFormat`), typed; nil when the manifest declares none.
    /// The loader already refused invalid formats, so this only fails for manifests built in memory.
    public func urlFormatValue() throws(URLFormatError) -> URLFormat? {
        guard let urlFormat else { return nil }
        return try URLFormat(propertyList: urlFormat.foundationValue)
    }
}
