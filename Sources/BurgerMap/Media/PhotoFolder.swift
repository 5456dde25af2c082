import BurgerMapCore
import Foundation

/// The image files in the photo folder (`<data folder>/photos`, or `--photo-dir`, which several
/// instances may share): `<id>.jpg` and `<id>.thumb.jpg` for each committed photo row, and
/// `incoming/` for files not yet committed.
///
/// Only committed photos ever have files at their final names, so a photo URL never serves
/// bytes whose row a crash rolled back:
/// 1. a photo is written to this process's own folder `incoming/<uuid>/` under a random name
///    and flushed (`stage`);
/// 2. the transaction that inserts its row renames it there to its id (`install`), so the name
///    records which row it belongs to, before it commits;
/// 3. after the commit it moves to its final name (`publish`).
/// A failed request removes what it staged. Each process holds a lock on its folder while it
/// runs (`flock`, released by the kernel when the process dies, `kill -9` included); at start-up
/// the folders that no running process holds are settled (`sweepOrphans`): a file named by the
/// id of a committed row is published, everything else is removed, and ids whose rows never
/// committed are retired so that no later photo takes them.
public struct PhotoFolder: PhotoStorage {
    public let root: URL
    private var incoming: URL { root.appendingPathComponent("incoming", isDirectory: true) }
    /// This process's folder in `incoming/`, locked while the storage lives.
    private let own: IncomingFolder

    /// Storage in `folder`, creating it, its `incoming/` and this process's folder in it.
    public init(folder: URL) throws {
        root = folder
        let incoming = folder.appendingPathComponent("incoming", isDirectory: true)
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        own = try IncomingFolder(in: incoming)
    }

    /// Storage under `dataDirectory/photos`, creating the folders.
    public init(dataDirectory: URL) throws {
        try self.init(folder: dataDirectory.appendingPathComponent("photos", isDirectory: true))
    }

    /// How old a file must be before the start-up sweep may take it for an orphan. Another
    /// instance sharing the folder may be between writing a file and committing its row; no
    /// upload takes this long (request bodies are cut off far sooner, `ConnectionLimits`).
    public static let sweepGrace: Duration = .seconds(3600)

    /// The stored file of a photo: the full-size image or its thumbnail.
    public func path(photoID: Int64, thumbnail: Bool) -> String {
        root.appendingPathComponent(thumbnail ? "\(photoID).thumb.jpg" : "\(photoID).jpg").path
    }

    /// Writes both images of a processed photo to this process's folder in `incoming/` and
    /// flushes them to disk.
    public func stage(_ photo: ProcessedPhoto) async throws -> StagedPhoto {
        let staged = StagedPhoto(
            name: UUID().uuidString.lowercased(), width: photo.width, height: photo.height, objectKey: nil)
        do {
            try Self.writeFlushed(photo.full, to: stagedPath(staged, thumbnail: false))
            try Self.writeFlushed(photo.thumbnail, to: stagedPath(staged, thumbnail: true))
        } catch {
            removeStaged(staged)
            throw error
        }
        return staged
    }

    /// The file of a staged photo's image in this process's folder.
    private func stagedPath(_ staged: StagedPhoto, thumbnail: Bool) -> String {
        own.url.appendingPathComponent(thumbnail ? "\(staged.name).thumb.jpg" : "\(staged.name).jpg").path
    }

    /// The file a staged photo has once its row has an id (`install`), before it is published.
    private func installedPath(_ folder: URL, photoID: Int64, thumbnail: Bool) -> String {
        folder.appendingPathComponent(thumbnail ? "\(photoID).thumb.jpg" : "\(photoID).jpg").path
    }

    /// Names staged photos after the ids of their new rows, still in `incoming/`, and flushes
    /// the folder, noting each in `installed` (published once the transaction commits, removed
    /// if it fails): the `beforeCommit` step of a store write.
    public func install(_ staged: [StagedPhoto], as photoIDs: [Int64], noting installed: InstalledPhotos) throws {
        for (photo, id) in zip(staged, photoIDs) {
            try Self.rename(
                stagedPath(photo, thumbnail: false), to: installedPath(own.url, photoID: id, thumbnail: false))
            try Self.rename(
                stagedPath(photo, thumbnail: true), to: installedPath(own.url, photoID: id, thumbnail: true))
            installed.append(InstalledPhoto(photoID: id, staged: photo))
        }
        if !staged.isEmpty { try Self.flushFolder(own.url.path) }
    }

    /// Moves installed photos, whose rows have committed, to their final names and flushes the
    /// folder. A photo that cannot be moved stays in `incoming/` and is published by the next
    /// start-up's sweep; the error is answered.
    public func publish(_ installed: [InstalledPhoto]) async throws {
        guard !installed.isEmpty else { return }
        for id in installed.map(\.photoID) {
            for thumbnail in [false, true] {
                try Self.rename(
                    installedPath(own.url, photoID: id, thumbnail: thumbnail),
                    to: path(photoID: id, thumbnail: thumbnail))
            }
        }
        try Self.flushFolder(root.path)
    }

    /// Removes installed photos whose rows did not commit.
    public func discardInstalled(_ installed: [InstalledPhoto]) async {
        for id in installed.map(\.photoID) {
            unlink(installedPath(own.url, photoID: id, thumbnail: false))
            unlink(installedPath(own.url, photoID: id, thumbnail: true))
        }
    }

    /// Makes renames in a folder durable: its entries are flushed like the files were.
    static func flushFolder(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { throw PhotoStorageError.system("open \(path)", errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw PhotoStorageError.system("flush \(path)", errno) }
    }

    /// Writes, flushes and removes a small file in this process's folder: answers the fault
    /// that stops photo writes, or `nil` when they work.
    public func probeWrite() async -> StorageFault? {
        let path = own.url.appendingPathComponent("probe-\(UUID().uuidString.lowercased())").path
        defer { unlink(path) }
        do {
            try Self.writeFlushed([UInt8](repeating: 0, count: 4096), to: path)
            return nil
        } catch let error as PhotoStorageError {
            return error.fault ?? StorageFault(.readOnly, .photos)
        } catch {
            return StorageFault(.readOnly, .photos)
        }
    }

    /// Removes a staged photo's files (they may be gone already).
    public func discard(_ staged: StagedPhoto) async { removeStaged(staged) }

    private func removeStaged(_ staged: StagedPhoto) {
        unlink(stagedPath(staged, thumbnail: false))
        unlink(stagedPath(staged, thumbnail: true))
    }

    /// Removes the files of photos whose rows are gone or were never committed.
    public func remove(photoIDs: [Int64]) async { removeFiles(photoIDs: photoIDs) }

    /// Removes the files of queued deletions: a folder's photos are named by their ids (keys
    /// of other photos name objects of a bucket, none here).
    public func removeObjects(keys: [String]) async throws {
        removeFiles(photoIDs: keys.compactMap(PhotoObjectKey.photoID(ofKey:)))
    }

    /// Removes the files of photos whose rows are gone or were never committed.
    func removeFiles(photoIDs: some Sequence<Int64>) {
        for id in photoIDs {
            unlink(path(photoID: id, thumbnail: false))
            unlink(path(photoID: id, thumbnail: true))
        }
    }

    /// The full-size file of a photo, read whole.
    public func fullImage(photoID: Int64, rows: (any PhotoStore)?) async throws -> [UInt8]? {
        FileManager.default.contents(atPath: path(photoID: photoID, thumbnail: false)).map { [UInt8]($0) }
    }

    /// A folder that accepts writes works; its faults are answered per request (`StorageFaults`).
    public var state: PhotoStoreState { .ok }

    /// Settles what crashed processes left in `incoming/` (see the type's comment), then removes
    /// photo files that no row of `store` owns (rows deleted by a process killed before it
    /// removed their files, or while the service was down). Run at start-up. A file under a
    /// photo's final name exists only once its row committed, so one without a row goes at any
    /// age; the photo ids are read after the folder is listed, so a photo published meanwhile
    /// keeps its files. Files of no photo (another `.jpg` name, files older versions left loose
    /// in `incoming/`) go once older than `sweepGrace`. Answers how many files were removed.
    public func sweepOrphans(_ store: any PhotoStore, now: Timestamp = .now()) async throws -> Int {
        var removed = try await settleAbandonedFolders(store, now: now)
        let cutoff = now.milliseconds - Self.sweepGrace.milliseconds
        let candidates = try orphanCandidates(olderThan: cutoff)
        let stored = try await store.storedPhotoIDs()
        for (path, id) in candidates where id.map({ !stored.contains($0) }) ?? true {
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// Settles every folder of `incoming/` whose process is gone: publishes the files of
    /// committed rows, removes the rest and the folder. Answers how many files were removed.
    func settleAbandonedFolders(_ store: any PhotoStore, now: Timestamp) async throws -> Int {
        var removed = 0
        let manager = FileManager.default
        for name in try manager.contentsOfDirectory(atPath: incoming.path) where name != own.url.lastPathComponent {
            let folder = incoming.appendingPathComponent(name, isDirectory: true)
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue,
                let abandoned = IncomingFolder.takeIfAbandoned(folder, now: now)
            else { continue }
            defer { abandoned.remove() }
            let names = try manager.contentsOfDirectory(atPath: folder.path)
            let ids = Set(names.compactMap(Self.photoID(inFileName:)))
            let committed = try await store.settleStagedPhotoIDs(Array(ids).sorted())
            for name in names {
                let path = folder.appendingPathComponent(name).path
                if let id = Self.photoID(inFileName: name), committed.contains(id) {
                    let target = self.path(photoID: id, thumbnail: name.hasSuffix(".thumb.jpg"))
                    if access(target, F_OK) != 0, Foundation.rename(path, target) == 0 { continue }
                }
                if name != IncomingFolder.lockName, unlink(path) == 0 { removed += 1 }
            }
            if !committed.isEmpty { try Self.flushFolder(root.path) }
        }
        return removed
    }

    /// The photo id of `<id>.jpg` or `<id>.thumb.jpg`, else `nil`.
    static func photoID(inFileName name: String) -> Int64? {
        guard let id = Int64(name.prefix { $0.isASCII && $0.isNumber }), id > 0,
            name == "\(id).jpg" || name == "\(id).thumb.jpg"
        else { return nil }
        return id
    }

    /// Files last changed before `cutoff` (milliseconds) that lie loose in `incoming/` (no id),
    /// or in the folder with a photo id or an unexpected `.jpg` name (no id).
    private func orphanCandidates(olderThan cutoff: Int64) throws -> [(path: String, id: Int64?)] {
        let manager = FileManager.default
        func isOldFile(_ path: String) -> Bool {
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
            return Int64(status.st_mtim.tv_sec) * 1000 + Int64(status.st_mtim.tv_nsec) / 1_000_000 < cutoff
        }
        var candidates: [(path: String, id: Int64?)] = []
        for name in try manager.contentsOfDirectory(atPath: incoming.path) {
            let path = incoming.appendingPathComponent(name).path
            if isOldFile(path) { candidates.append((path, nil)) }
        }
        for name in try manager.contentsOfDirectory(atPath: root.path) where name.hasSuffix(".jpg") {
            let path = root.appendingPathComponent(name).path
            let id = Self.photoID(inFileName: name)
            guard id != nil || isOldFile(path) else { continue }
            candidates.append((path, id))
        }
        return candidates
    }

    private static func writeFlushed(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw PhotoStorageError.system("create \(path)", errno) }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw PhotoStorageError.system("write \(path)", errno) }
            written += result
        }
        guard fsync(descriptor) == 0 else { throw PhotoStorageError.system("flush \(path)", errno) }
    }

    private static func rename(_ source: String, to target: String) throws {
        guard Foundation.rename(source, target) == 0 else { throw PhotoStorageError.system("rename \(source)", errno) }
    }
}

/// A file-system call failed (disk full, permissions): the service's fault, not the client's.
enum PhotoStorageError: Error, CustomStringConvertible {
    case system(String, Int32)

    var description: String {
        switch self {
        case .system(let action, let code): "\(action): \(String(cString: strerror(code)))"
        }
    }

    /// The storage fault the error means (a full disk, a read-only folder), if it is one.
    var fault: StorageFault? {
        switch self {
        case .system(_, let code): StorageFault.fromErrno(code, .photos)
        }
    }
}
