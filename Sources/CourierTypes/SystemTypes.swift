/// The system-declared uniform type identifiers that matter for files, as Apple declares them
/// (identifiers, parents, extensions and MIME types from Apple's UTType documentation).
///
/// This is the UTI layer only; what a file name or content means comes from the freedesktop
/// shared-mime-info database (``MIMEDatabase``); these declarations give its MIME types their
/// identifiers, and their extensions count only for names the database does not know.
enum SystemTypes {
    static func d(_ id: String, _ parents: [String], _ exts: [String] = [], _ mimes: [String] = [], text: String) -> TypeDeclaration {
        TypeDeclaration(identifier: id, conformsTo: parents, filenameExtensions: exts, mimeTypes: mimes, description: text)
    }

    /// Other spellings accepted for the same type (left: alias, right: the identifier Apple uses).
    static let aliases: [String: String] = [
        "public.pdf": "com.adobe.pdf",
        "public.gif": "com.compuserve.gif",
        "public.bmp": "com.microsoft.bmp",
        "public.webp": "org.webmproject.webp",
        "public.gzip-archive": "org.gnu.gnu-zip-archive",
        "public.markdown": "net.daringfireball.markdown",
        "public.wav": "com.microsoft.waveform-audio",
    ]

    static let declarations: [TypeDeclaration] = [
        // Roots and the physical / functional hierarchies.
        d("public.item", [], text: "item"),
        d("public.content", [], text: "content"),
        d("public.data", ["public.item"], [], ["application/octet-stream"], text: "data"),
        d("public.directory", ["public.item"], text: "folder"),
        d("public.folder", ["public.directory"], [], ["inode/directory"], text: "folder"),
        d("public.composite-content", ["public.content"], text: "composite content"),
        d("public.executable", ["public.item"], text: "executable"),
        d("public.unix-executable", ["public.data", "public.executable"], [], ["application/x-executable", "application/x-pie-executable", "application/x-sharedlib"], text: "Unix executable"),
        d("public.message", ["public.data", "public.content"], text: "message"),
        d("public.contact", ["public.data", "public.content"], text: "contact"),
        d("public.database", ["public.data"], text: "database"),
        // Text.
        d("public.text", ["public.data", "public.content"], text: "text"),
        d("public.plain-text", ["public.text"], ["txt", "text"], ["text/plain"], text: "plain text"),
        d("public.utf8-plain-text", ["public.plain-text"], [], ["text/plain;charset=utf-8"], text: "UTF-8 plain text"),
        d("public.utf16-plain-text", ["public.plain-text"], [], ["text/plain;charset=utf-16"], text: "UTF-16 plain text"),
        d("public.delimited-values-text", ["public.text"], text: "delimited values"),
        d("public.comma-separated-values-text", ["public.delimited-values-text"], ["csv"], ["text/csv"], text: "CSV"),
        d("public.tab-separated-values-text", ["public.delimited-values-text"], ["tsv"], ["text/tab-separated-values"], text: "TSV"),
        d("public.rtf", ["public.text"], ["rtf"], ["text/rtf", "application/rtf"], text: "rich text"),
        d("public.html", ["public.text"], ["html", "htm"], ["text/html"], text: "HTML"),
        d("public.xml", ["public.text"], ["xml"], ["application/xml", "text/xml"], text: "XML"),
        d("public.json", ["public.text"], ["json"], ["application/json"], text: "JSON"),
        d("public.yaml", ["public.text"], ["yaml", "yml"], ["application/yaml", "application/x-yaml", "text/yaml"], text: "YAML"),
        d("net.daringfireball.markdown", ["public.plain-text"], ["md", "markdown"], ["text/markdown", "text/x-markdown"], text: "Markdown"),
        d("public.source-code", ["public.plain-text"], text: "source code"),
        d("public.c-source", ["public.source-code"], ["c"], ["text/x-c", "text/x-csrc"], text: "C source"),
        d("public.c-header", ["public.source-code"], ["h"], ["text/x-chdr"], text: "C header"),
        d("public.swift-source", ["public.source-code"], ["swift"], ["text/x-swift"], text: "Swift source"),
        d("public.script", ["public.source-code"], text: "script"),
        d("public.shell-script", ["public.script"], ["sh", "command"], ["application/x-shellscript", "text/x-shellscript", "text/x-sh"], text: "shell script"),
        d("public.python-script", ["public.script"], ["py"], ["text/x-python", "text/x-python3", "text/x-script.python"], text: "Python script"),
        d("com.netscape.javascript-source", ["public.script"], ["js", "mjs"], ["text/javascript", "application/javascript", "application/x-javascript"], text: "JavaScript"),
        d("com.apple.property-list", ["public.data"], ["plist"], ["application/x-plist"], text: "property list"),
        d("com.apple.xml-property-list", ["public.xml", "com.apple.property-list"], [], [], text: "XML property list"),
        d("com.apple.binary-property-list", ["com.apple.property-list"], [], ["application/x-bplist"], text: "binary property list"),
        d("public.url", ["public.data"], [], ["text/uri-list"], text: "URL"),
        d("public.file-url", ["public.url"], text: "file URL"),
        d("public.vcard", ["public.text", "public.contact"], ["vcf", "vcard"], ["text/vcard", "text/x-vcard", "text/directory"], text: "vCard"),
        d("com.apple.ical.ics", ["public.text", "public.calendar-event"], ["ics"], ["text/calendar"], text: "iCalendar"),
        d("public.calendar-event", ["public.item"], text: "calendar event"),
        d("public.log", ["public.plain-text"], ["log"], ["text/x-log"], text: "log"),
        // Images.
        d("public.image", ["public.data", "public.content"], text: "image"),
        d("public.png", ["public.image"], ["png"], ["image/png"], text: "PNG image"),
        d("public.jpeg", ["public.image"], ["jpg", "jpeg", "jpe"], ["image/jpeg", "image/pjpeg"], text: "JPEG image"),
        d("com.compuserve.gif", ["public.image"], ["gif"], ["image/gif"], text: "GIF image"),
        d("public.tiff", ["public.image"], ["tif", "tiff"], ["image/tiff"], text: "TIFF image"),
        d("com.microsoft.bmp", ["public.image"], ["bmp"], ["image/bmp", "image/x-bmp", "image/x-ms-bmp"], text: "BMP image"),
        d("org.webmproject.webp", ["public.image"], ["webp"], ["image/webp"], text: "WebP image"),
        d("public.heic", ["public.image"], ["heic"], ["image/heic"], text: "HEIC image"),
        d("public.svg-image", ["public.image", "public.xml"], ["svg", "svgz"], ["image/svg+xml"], text: "SVG image"),
        d("com.microsoft.ico", ["public.image"], ["ico"], ["image/vnd.microsoft.icon", "image/x-icon"], text: "icon"),
        // Documents.
        d("com.adobe.pdf", ["public.data", "public.composite-content"], ["pdf"], ["application/pdf"], text: "PDF document"),
        d("public.presentation", ["public.composite-content"], text: "presentation"),
        d("public.spreadsheet", ["public.content"], text: "spreadsheet"),
        d("org.openxmlformats.openxml", ["public.zip-archive"], text: "Office Open XML"),
        d("org.openxmlformats.wordprocessingml.document", ["org.openxmlformats.openxml", "public.composite-content"], ["docx"], ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"], text: "Word document"),
        d("org.openxmlformats.spreadsheetml.sheet", ["org.openxmlformats.openxml", "public.spreadsheet"], ["xlsx"], ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"], text: "Excel workbook"),
        d("org.openxmlformats.presentationml.presentation", ["org.openxmlformats.openxml", "public.presentation"], ["pptx"], ["application/vnd.openxmlformats-officedocument.presentationml.presentation"], text: "PowerPoint presentation"),
        d("org.oasis-open.opendocument.text", ["public.zip-archive", "public.composite-content"], ["odt"], ["application/vnd.oasis.opendocument.text"], text: "OpenDocument text"),
        d("org.idpf.epub-container", ["public.zip-archive", "public.composite-content"], ["epub"], ["application/epub+zip"], text: "EPUB"),
        // Audio and video.
        d("public.audiovisual-content", ["public.data", "public.content"], text: "audiovisual content"),
        d("public.audio", ["public.audiovisual-content"], text: "audio"),
        d("public.movie", ["public.audiovisual-content"], text: "movie"),
        d("public.video", ["public.movie"], text: "video"),
        d("public.mp3", ["public.audio"], ["mp3"], ["audio/mpeg", "audio/mp3"], text: "MP3 audio"),
        d("public.mpeg-4-audio", ["public.audio"], ["m4a"], ["audio/mp4", "audio/x-m4a"], text: "MPEG-4 audio"),
        d("com.microsoft.waveform-audio", ["public.audio"], ["wav", "wave"], ["audio/wav", "audio/x-wav", "audio/vnd.wave"], text: "WAVE audio"),
        d("org.xiph.flac", ["public.audio"], ["flac"], ["audio/flac", "audio/x-flac"], text: "FLAC audio"),
        d("org.xiph.ogg-audio", ["public.audio"], ["ogg", "oga", "opus"], ["audio/ogg", "audio/x-vorbis+ogg", "audio/x-opus+ogg"], text: "Ogg audio"),
        d("public.mpeg-4", ["public.movie"], ["mp4", "m4v"], ["video/mp4"], text: "MPEG-4 movie"),
        d("com.apple.quicktime-movie", ["public.movie"], ["mov", "qt"], ["video/quicktime"], text: "QuickTime movie"),
        d("org.webmproject.webm", ["public.movie"], ["webm"], ["video/webm"], text: "WebM movie"),
        d("public.avi", ["public.movie"], ["avi"], ["video/x-msvideo", "video/avi"], text: "AVI movie"),
        d("org.matroska.mkv", ["public.movie"], ["mkv"], ["video/x-matroska"], text: "Matroska movie"),
        // Archives.
        d("public.archive", ["public.data"], text: "archive"),
        d("public.zip-archive", ["public.archive"], ["zip"], ["application/zip", "application/x-zip-compressed"], text: "ZIP archive"),
        d("org.gnu.gnu-zip-archive", ["public.archive"], ["gz", "gzip"], ["application/gzip", "application/x-gzip"], text: "gzip archive"),
        d("public.tar-archive", ["public.archive"], ["tar"], ["application/x-tar"], text: "tar archive"),
        d("org.gnu.gnu-tar-archive", ["public.tar-archive"], ["gtar"], ["application/x-gtar"], text: "GNU tar archive"),
        d("public.bzip2-archive", ["public.archive"], ["bz2"], ["application/x-bzip2", "application/x-bzip"], text: "bzip2 archive"),
        d("org.tukaani.xz-archive", ["public.archive"], ["xz"], ["application/x-xz"], text: "xz archive"),
        d("org.7-zip.7-zip-archive", ["public.archive"], ["7z"], ["application/x-7z-compressed"], text: "7-Zip archive"),
        d("public.disk-image", ["public.archive"], ["iso", "img"], ["application/x-iso9660-image", "application/x-cd-image"], text: "disk image"),
        // Fonts.
        d("public.font", ["public.data", "public.content"], text: "font"),
        d("public.truetype-ttf-font", ["public.font"], ["ttf"], ["font/ttf", "application/x-font-ttf"], text: "TrueType font"),
        d("public.opentype-font", ["public.font"], ["otf"], ["font/otf", "application/x-font-otf"], text: "OpenType font"),
    ]
}
