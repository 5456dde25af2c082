import Foundation

/// The image files under `<data folder>/photos`: `<id>.jpg` and `<id>.thumb.jpg` for each photo
/// row, and `incoming/` for files not yet committed.
///
/// A photo is written to `incoming/` under a random name and flushed (`stage`); the database
/// transaction that inserts its row renames it to its final name (`install`) before it commits.
/// A failed request removes what it staged or installed; files orphaned by a crash are removed at
/// start-up (`sweep`), before the service takes requests.
public struct PhotoStorage: Sendable {
    public let root: URL
    private var incoming: URL { root.appendingPathComponent("incoming", isDirectory: true) }

    /// Storage under `dataDirectory/photos`, creating the folders.
    public init(dataDirectory: URL) throws {
        root = dataDirectory.appendingPathComponent("photos", isDirectory: true)
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
    }

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
    /// Run at start-up, before requests are served.
    public func sweepOrphans(_ store: any PhotoStore) async throws -> Int {
        let stored = try await store.storedPhotoIDs()
        return try sweep { stored.contains($0) }
    }

    /// Removes everything in `incoming/` and every photo file whose id `isStored` denies.
    /// Answers how many files went.
    public func sweep(isStored: (Int64) throws -> Bool) throws -> Int {
        var removed = 0
        let manager = FileManager.default
        for name in try manager.contentsOfDirectory(atPath: incoming.path) {
            if unlink(incoming.appendingPathComponent(name).path) == 0 { removed += 1 }
        }
        for name in try manager.contentsOfDirectory(atPath: root.path) where name.hasSuffix(".jpg") {
            let idText = name.prefix { $0.isNumber }
            if let id = Int64(idText), name == "\(id).jpg" || name == "\(id).thumb.jpg", try isStored(id) {
                continue
            }
            if unlink(root.appendingPathComponent(name).path) == 0 { removed += 1 }
        }
        return removed
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
