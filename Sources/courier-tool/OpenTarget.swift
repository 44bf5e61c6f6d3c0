import CourierNames
import Foundation

/// One argument of `courier open`: a URL for `OpenURL`, or a file to open through the drop path
/// (`OpenArgument` says which). A `file:` URL on this machine (no host, or `localhost`) is its
/// path, percent-decoded; one naming another host stays a URL (the desktop's handler may know it).
enum OpenTarget: Equatable {
    case url(String)
    case file(String)

    init(_ argument: String) {
        if OpenArgument.isURL(argument) {
            self = .url(argument)
        } else if OpenArgument.scheme(of: argument) == "file" {
            if let url = URL(string: argument), url.isFileURL, (url.host ?? "").isEmpty || url.host == "localhost", !url.path.isEmpty {
                self = .file(url.path)
            } else {
                self = .url(argument)
            }
        } else {
            self = .file(argument)
        }
    }
}
