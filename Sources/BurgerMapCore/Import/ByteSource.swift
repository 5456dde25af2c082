import Foundation

/// Reads a file in fixed-size chunks, so that readers of any file size use the same memory.
package struct ByteSource {
    private let handle: FileHandle
    private(set) var bytesRead: Int64 = 0
    /// The file's size in bytes, when known (for progress).
    package let size: Int64?
    private let chunkSize: Int

    /// Opens `url` for reading; throws `ImportError.unreadable` when it cannot be read.
    package init(url: URL, chunkSize: Int = 1 << 20) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: url.path)
        else {
            throw ImportError.unreadable(path: url.path, reason: "no readable file there")
        }
        self.handle = handle
        self.chunkSize = chunkSize
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        size = (attributes?[.size] as? NSNumber)?.int64Value
    }

    /// The next chunk, or `nil` at the end of the file.
    package mutating func nextChunk() throws -> [UInt8]? {
        let data: Data?
        do {
            data = try handle.read(upToCount: chunkSize)
        } catch {
            throw ImportError.unreadable(path: "", reason: error.localizedDescription)
        }
        guard let data, !data.isEmpty else { return nil }
        bytesRead += Int64(data.count)
        return [UInt8](data)
    }
}

/// Why an import could not run at all (as opposed to a skipped row).
public enum ImportError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notADataset(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .notADataset(let path, let reason): "\(path) is not a place dataset: \(reason)"
        }
    }
}
