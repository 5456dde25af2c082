import Foundation

/// The one rule for naming a photo's images in an object store, shared by the upload, the
/// reads, the sweeper, the deletion queue's trigger (both engines' migrations) and
/// `photos migrate`.
///
/// A photo uploaded to an object store gets a random key before its row exists (a UUID, 122
/// random bits, with hyphens, so never all digits): its objects can be written before the row
/// commits, and no one can name an object whose row has not committed. A photo copied from the
/// photo folder by `photos migrate` keeps no key in its row and is stored under its id, the
/// decimal digits: its row had committed long before, so its name tells no one anything new.
public enum PhotoObjectKey {
    /// A new random key.
    public static func random() -> String { UUID().uuidString.lowercased() }

    /// The key a photo's objects are stored under: its own, or its id for a migrated photo.
    public static func resolved(photoID: Int64, objectKey: String?) -> String {
        objectKey ?? String(photoID)
    }

    /// The object name of one image under `prefix` (no leading or trailing slash, may be empty).
    public static func objectName(prefix: String, key: String, thumbnail: Bool) -> String {
        (prefix.isEmpty ? "" : prefix + "/") + key + (thumbnail ? ".thumb.jpg" : ".jpg")
    }

    /// The key of an object name under `prefix`, or `nil` when the name is not one of a photo's
    /// images (such objects are nobody's: the sweeper removes them once old enough).
    public static func key(ofObjectName name: String, prefix: String) -> String? {
        let start = prefix.isEmpty ? "" : prefix + "/"
        guard name.hasPrefix(start) else { return nil }
        var rest = Substring(name.dropFirst(start.count))
        if rest.hasSuffix(".thumb.jpg") {
            rest = rest.dropLast(".thumb.jpg".count)
        } else if rest.hasSuffix(".jpg") {
            rest = rest.dropLast(".jpg".count)
        } else {
            return nil
        }
        guard isValid(rest) else { return nil }
        return String(rest)
    }

    /// Whether `key` is a photo id (digits, no leading zero) or a lowercase UUID.
    public static func isValid(_ key: Substring) -> Bool {
        if let id = Int64(key), id > 0, String(id) == key { return true }
        guard key.count == 36, let uuid = UUID(uuidString: String(key)) else { return false }
        return uuid.uuidString.lowercased() == key
    }

    /// The photo id a key names (a migrated photo), else `nil`.
    public static func photoID(ofKey key: String) -> Int64? {
        guard let id = Int64(key), id > 0, String(id) == key else { return nil }
        return id
    }
}
