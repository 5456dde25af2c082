import Foundation

/// One process's folder in the photo folder's `incoming/`, where its uploads wait for their
/// rows. The process holds an exclusive `flock` on the folder's lock file for as long as it
/// lives; the kernel releases it when the process ends in any way (`kill -9` included), which is
/// how the start-up sweep of another process tells a folder nobody owns any more. (A lock held by
/// a process on another machine is only seen where the shared file system supports `flock`;
/// elsewhere the folder's age decides, `PhotoStorage.sweepGrace`.)
final class IncomingFolder: Sendable {
    static let lockName = ".lock"
    /// A folder younger than this is never taken: its process may not have locked it yet.
    static let creationGrace: Int64 = 60_000

    let url: URL
    private let lock: Int32

    /// Creates and locks a new folder in `incoming`.
    init(in incoming: URL) throws {
        url = incoming.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        let descriptor = open(url.appendingPathComponent(Self.lockName).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw PhotoStorageError.system("create lock in \(url.path)", errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw PhotoStorageError.system("lock \(url.path)", errno)
        }
        lock = descriptor
    }

    private init(taken url: URL, lock: Int32) {
        self.url = url
        self.lock = lock
    }

    /// A folder no running process holds, locked now by this one; `nil` while its owner runs
    /// (or while it is too new to tell: a process makes its folder, then locks it).
    static func takeIfAbandoned(_ folder: URL, now: Timestamp) -> IncomingFolder? {
        var status = stat()
        guard stat(folder.path, &status) == 0 else { return nil }
        let changed = Int64(status.st_mtim.tv_sec) * 1000 + Int64(status.st_mtim.tv_nsec) / 1_000_000
        guard changed < now.milliseconds - creationGrace else { return nil }
        let descriptor = open(folder.appendingPathComponent(lockName).path, O_RDWR | O_CLOEXEC)
        // No lock file in a folder this old: its process died before it locked it.
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
