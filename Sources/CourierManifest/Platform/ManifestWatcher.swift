import CourierTypes
import CourierNames
import Dispatch
import Glibc

/// Watches manifest folders with inotify and reports, debounced, that something changed.
///
/// One inotify descriptor for all folders, read by a Dispatch read source; events are collected
/// until no new one arrives for `debounce`, then `onChange` is called once with the folders that
/// changed (an editor's save is several events: temporary file, rename, attribute change). A queue
/// overflow reports every folder. Folders that do not exist are not watched; a manifest file
/// named instead of a folder is watched through the folder holding it.
///
/// All mutable state lives on one private serial queue; that is the invariant behind
/// `@unchecked Sendable`.
public final class ManifestWatcher: @unchecked Sendable {
    private let queue = DispatchQueue(label: "courier.manifest-watcher")
    /// Marks `queue`, so that ``stop()`` called from a callback does not wait on its own queue.
    private let onQueue = DispatchSpecificKey<Bool>()
    private let fd: Int32
    private var source: (any DispatchSourceRead)?
    private var folderByWatch: [Int32: String] = [:]
    private var pending: Set<String> = []
    private var timer: DispatchWorkItem?
    private let debounce: DispatchTimeInterval
    private let onChange: @Sendable ([String]) -> Void

    /// Starts watching. Throws when inotify is unavailable (no descriptors left, …).
    public init(folders: [String], debounceMilliseconds: Int = 200, onChange: @escaping @Sendable ([String]) -> Void) throws(RegistryError) {
        self.debounce = .milliseconds(debounceMilliseconds)
        self.onChange = onChange
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            throw RegistryError(.stateNotWritable, "cannot watch the manifest folders: inotify_init1 failed: \(SafeFileReader.errorText(errno)); changes will need `courier` to reload")
        }
        self.fd = fd
        queue.setSpecific(key: onQueue, value: true)
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
        for entry in folders {
            // A single manifest file is watched through its folder.
            let folder = Paths.isDirectory(entry) ? entry : (Paths.exists(entry) ? Paths.directory(of: entry) : nil)
            guard let folder, !folderByWatch.values.contains(folder) else { continue }
            let wd = inotify_add_watch(fd, folder, mask)
            if wd >= 0 { folderByWatch[wd] = folder }
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.drain() }
        source.setCancelHandler { close(fd) }
        self.source = source
        source.resume()
    }

    /// The folders actually watched.
    public var watchedFolders: [String] {
        if DispatchQueue.getSpecific(key: onQueue) == true { return Array(folderByWatch.values).sorted() }
        return queue.sync { Array(folderByWatch.values).sorted() }
    }

    /// Stops watching and closes the descriptor. Idempotent.
    public func stop() {
        let body = {
            self.timer?.cancel()
            self.timer = nil
            self.source?.cancel()
            self.source = nil
        }
        if DispatchQueue.getSpecific(key: onQueue) == true { body() } else { queue.sync(execute: body) }
    }

    deinit {
        source?.cancel()
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var offset = 0
            while offset + 16 <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    pending.formUnion(folderByWatch.values)
                } else if let folder = folderByWatch[wd] {
                    pending.insert(folder)
                    if mask & UInt32(IN_IGNORED) != 0 { folderByWatch[wd] = nil }
                }
                offset += 16 + length
            }
        }
        guard !pending.isEmpty else { return }
        timer?.cancel()
        let work = DispatchWorkItem { [weak self] in self?.fire() }
        timer = work
        queue.asyncAfter(deadline: .now() + debounce, execute: work)
    }

    private func fire() {
        let folders = pending.sorted()
        pending = []
        timer = nil
        onChange(folders)
    }
}
