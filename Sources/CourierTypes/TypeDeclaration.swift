/// A uniform type identifier declaration: a system type, or an app's
/// `UTExportedTypeDeclarations` / `UTImportedTypeDeclarations` entry.
public struct TypeDeclaration: Sendable, Hashable {
    /// `UTTypeIdentifier`, e.g. `public.plain-text` or `com.acme.todolist.list`.
    public var identifier: String
    /// `UTTypeConformsTo`: the parents in the conformance graph.
    public var conformsTo: [String]
    /// `UTTypeTagSpecification` → `public.filename-extension`, lowercased, without the dot.
    public var filenameExtensions: [String]
    /// `UTTypeTagSpecification` → `public.mime-type`, lowercased.
    public var mimeTypes: [String]
    /// `UTTypeDescription`.
    public var description: String?

    public init(
        identifier: String, conformsTo: [String] = [], filenameExtensions: [String] = [],
        mimeTypes: [String] = [], description: String? = nil
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.description = description
    }
}
