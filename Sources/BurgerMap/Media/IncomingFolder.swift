import BurgerMapCore
import Foundation

/// One process's folder in the photo folder's `incoming/`, where its uploads wait for their
/// rows. The process holds an exclusive `flock` on the folder's lock file for as long as it
/// lives; the kernel releases it when the process ends in any way (`kill -9` included), which is
/// how the start-up sweep of another process tells a folder nobody owns any more. (A lock held by
/// a process on another machine is only seen where the shared file system supports `flock`;
/// elsewhere the folder's age decides, `PhotoFolder.sweepGrace`.)
final class IncomingFolder: Sendable {
    static let lockName = ".lock"
    /// A folder is made under a name starting with this, locked, then renamed: a folder under
    /// its final name is locked from its first moment, so a sweep can judge it at any age.
    static let makingPrefix = ".making-"
    /// A folder still being made this long after it was started belongs to a process that died.
    static let makingGrace: Int64 = 60_000

    let url: URL
    private let lock: Int32

    /// Creates and locks a new folder in `incoming`: made and locked under a temporary name,
    /// then renamed to its own.
    init(in incoming: URL) throws {
        let name = UUID().uuidString.lowercased()
        let making = incoming.appendingPathComponent(Self.makingPrefix + name, isDirectory: true)
        url = incoming.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: making, withIntermediateDirectories: false)
        let descriptor = open(
            making.appendingPathComponent(Self.lockName).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw PhotoStorageError.system("create lock in \(making.path)", errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, rename(making.path, url.path) == 0 else {
            let code = errno
            close(descriptor)
            try? FileManager.default.removeItem(at: making)
            throw PhotoStorageError.system("lock \(url.path)", code)
        }
        lock = descriptor
    }

    private init(taken url: URL, lock: Int32) {
        self.url = url
        self.lock = lock
    }

    /// A folder no running process holds, locked now by this one; `nil` while its owner runs.
    /// A folder still being made is taken only once it is older than `makingGrace`.
    static func takeIfAbandoned(_ folder: URL, now: Timestamp) -> IncomingFolder? {
        if folder.lastPathComponent.hasPrefix(makingPrefix) {
            var status = stat()
            guard stat(folder.path, &status) == 0 else { return nil }
            let changed = Int64(status.st_mtim.tv_sec) * 1000 + Int64(status.st_mtim.tv_nsec) / 1_000_000
            guard changed < now.milliseconds - makingGrace else { return nil }
        }
        let descriptor = open(folder.appendingPathComponent(lockName).path, O_RDWR | O_CLOEXEC)
        // No lock file: a folder whose making never finished.
        guard descriptor >= 0 else { return IncomingFolder(taken: folder, lock: -1) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return IncomingFolder(taken: folder, lock: descriptor)
    }

    /// Removes the folder with whatever is left in it (a taken folder, once settled).
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    deinit {
        guard lock >= 0 else { return }
        // A process's own folder goes with its storage when nothing waits in it (a test makes
        // many); what waits is settled by the next start-up's sweep.
        if (try? FileManager.default.contentsOfDirectory(atPath: url.path)) == [Self.lockName] {
            remove()
        }
        close(lock)
    }
}
