import Foundation

/// A fault of the machine that stops writes: a full disk or a read-only file, of the database
/// or of the photo folder. Not the client's fault and not the service's: the answer is
/// `503 storage_full` or `503 storage_read_only` with `Retry-After`, and `/health` answers the
/// same until a write succeeds again (`StorageFaults`).
public struct StorageFault: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case full
        case readOnly
    }

    /// Where writes fail.
    public enum Place: String, Sendable, Equatable {
        case database
        case photos
    }

    public var kind: Kind
    public var place: Place

    public init(_ kind: Kind, _ place: Place) {
        self.kind = kind
        self.place = place
    }

    /// The fault an `errno` of a failed file-system call means, if it is one.
    public static func fromErrno(_ code: Int32, _ place: Place) -> StorageFault? {
        switch code {
        case ENOSPC, EDQUOT: StorageFault(.full, place)
        case EROFS, EACCES, EPERM: StorageFault(.readOnly, place)
        default: nil
        }
    }

    public var description: String {
        "\(place.rawValue) \(kind == .full ? "disk full" : "read-only")"
    }
}
