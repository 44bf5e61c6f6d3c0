/// Sizes the broker enforces, which its clients check before sending (docs/dbus-api.md).
public enum CourierLimits {
    /// The largest `annotation` of an `OpenURL` the broker passes on to an app: 16 MiB, counted as
    /// `DBusValue.byteCount` counts (strings' and byte arrays' bytes, each scalar's size). The broker
    /// would hold a larger one while the app starts and copy it into the delivery; data that large
    /// travels as a file (`DropFiles`).
    public static let maximumAnnotationBytes = 16 << 20

    /// What `LimitsExceeded` says about an annotation of `size` bytes.
    public static func annotationTooLarge(_ size: Int) -> String {
        "the annotation is \(size) bytes; at most \(maximumAnnotationBytes) (16 MiB) are passed to an app: send a larger document as a file (courier drop FILE --to APP, or DropFiles)"
    }
}
