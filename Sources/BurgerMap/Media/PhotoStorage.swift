import Foundation

/// The image files in the photo folder (`<data folder>/photos`, or `--photo-dir`, which several
/// instances may share): `<id>.jpg` and `<id>.thumb.jpg` for each photo row, and `incoming/`
/// for files not yet committed.
///
/// A photo is written to `incoming/` under a random name and flushed (`stage`); the database
/// transaction that inserts its row renames it to its final name (`install`) before it commits.
/// A failed request removes what it staged or installed; files orphaned by a crash are removed at
/// start-up (`sweep`), before the service takes requests.
public struct PhotoStorage: Sendable {
    public let root: URL
    private var incoming: URL { root.appendingPathComponent("incoming", isDirectory: true) }

    /// Storage in `folder`, creating it and its `incoming/`.
    public init(folder: URL) throws {
        root = folder
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
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

    /// Writes both images of a processed photo to `incoming/` and flushes them to disk.
    func stage(_ photo: ProcessedPhoto) throws -> StagedPhoto {
        let name = UUID().uuidString.lowercased()
        let staged = StagedPhoto(
            fullPath: incoming.appendingPathComponent("\(name).jpg").path,
            thumbnailPath: incoming.appendingPathComponent("\(name).thumb.jpg").path,
            width: photo.width, height: photo.height)
        do {
            try Self.writeFlushed(photo.full, to: staged.fullPath)
            try Self.writeFlushed(photo.thumbnail, to: staged.thumbnailPath)
        } catch {
            discard(staged)
            throw error
        }
        return staged
    }

    /// Moves a staged photo to its final names (the caller's transaction then commits).
    func install(_ staged: StagedPhoto, as photoID: Int64) throws {
        try Self.rename(staged.fullPath, to: path(photoID: photoID, thumbnail: false))
        try Self.rename(staged.thumbnailPath, to: path(photoID: photoID, thumbnail: true))
    }

    /// Moves staged photos to the final names of their new rows and flushes the folder, noting
    /// each in `installed` (so that a failed transaction removes them): the `beforeCommit` step of
    /// a store write.
    func install(_ staged: [StagedPhoto], as photoIDs: [Int64], noting installed: InstalledPhotos) throws {
        for (photo, id) in zip(staged, photoIDs) {
            try install(photo, as: id)
            installed.append(id)
        }
        if !staged.isEmpty { try flushFolder() }
    }

    /// Makes the renames durable: the folder entries are flushed like the files were.
    func flushFolder() throws {
        let descriptor = open(root.path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { throw PhotoStorageError.system("open photos folder", errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw PhotoStorageError.system("flush photos folder", errno) }
    }

    /// Removes a staged photo's files (they may be gone already).
    func discard(_ staged: StagedPhoto) {
        unlink(staged.fullPath)
        unlink(staged.thumbnailPath)
    }

    /// Removes the files of photos whose rows are gone or were never committed.
    func remove(photoIDs: some Sequence<Int64>) {
        for id in photoIDs {
            unlink(path(photoID: id, thumbnail: false))
            unlink(path(photoID: id, thumbnail: true))
        }
    }

    /// Removes photo files that no row of `store` owns (left by a crash between rename and
    /// commit, or by rows deleted while the service was down) and everything in `incoming/`.
    /// Run at start-up. Only files older than `sweepGrace` go, so that an upload another
    /// instance is committing right now is never taken for an orphan; the photo ids are read
    /// after the folder is listed, so a row committed meanwhile keeps its files.
    public func sweepOrphans(_ store: any PhotoStore, now: Timestamp = .now()) async throws -> Int {
        let cutoff = now.milliseconds - Self.sweepGrace.milliseconds
        let candidates = try orphanCandidates(olderThan: cutoff)
        let stored = try await store.storedPhotoIDs()
        var removed = 0
        for (path, id) in candidates where id.map({ !stored.contains($0) }) ?? true {
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// Files last changed before `cutoff` (milliseconds) that are in `incoming/` (no id) or in
    /// the folder with a photo id or an unexpected `.jpg` name (no id).
    private func orphanCandidates(olderThan cutoff: Int64) throws -> [(path: String, id: Int64?)] {
        let manager = FileManager.default
        func isOld(_ path: String) -> Bool {
            var status = stat()
            guard stat(path, &status) == 0 else { return false }
            return Int64(status.st_mtim.tv_sec) * 1000 + Int64(status.st_mtim.tv_nsec) / 1_000_000 < cutoff
        }
        var candidates: [(path: String, id: Int64?)] = []
        for name in try manager.contentsOfDirectory(atPath: incoming.path) {
            let path = incoming.appendingPathComponent(name).path
            if isOld(path) { candidates.append((path, nil)) }
        }
        for name in try manager.contentsOfDirectory(atPath: root.path) where name.hasSuffix(".jpg") {
            let path = root.appendingPathComponent(name).path
            guard isOld(path) else { continue }
            let id = Int64(name.prefix { $0.isNumber })
            let wellFormed = id.map { name == "\($0).jpg" || name == "\($0).thumb.jpg" } ?? false
            candidates.append((path, wellFormed ? id : nil))
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

/// A processed photo whose files sit in `incoming/`, waiting for its row.
struct StagedPhoto: Sendable {
    var fullPath: String
    var thumbnailPath: String
    var width: Int
    var height: Int

    /// What the photo's row keeps.
    var size: PhotoSize { PhotoSize(width: width, height: height) }
}

/// A file-system call failed (disk full, permissions): the service's fault, not the client's.
enum PhotoStorageError: Error, CustomStringConvertible {
    case system(String, Int32)

    var description: String {
        switch self {
        case .system(let action, let code): "\(action): \(String(cString: strerror(code)))"
        }
    }
}
