import BurgerMapCore
import BurgerMapObjectStorage
import Foundation

extension PhotoBucket {
    /// Removes the objects under the prefix that no photo row names and that were last written
    /// before `now - grace`: the images of uploads whose rows never committed (a process killed
    /// between the upload and the commit, a failed request whose clean-up the store refused),
    /// and anything else left under the service's prefix. One list page (up to 1,000 objects)
    /// at a time, its keys checked against the rows in one read per `PhotoObjectSweep.batch`.
    ///
    /// An object younger than `grace` is never taken: an upload still committing wrote it
    /// moments ago (request bodies are cut off far sooner than the grace, `ConnectionLimits`).
    /// The rows are read after the page is listed, so a photo that committed meanwhile keeps its
    /// objects. The store's clock dates the objects: the instances' clocks must agree with it
    /// to well within the grace. Answers how many objects were removed.
    public func sweepOrphans(_ rows: any PhotoStore, now: Timestamp, grace: Duration) async throws -> Int {
        let cutoff = Date(timeIntervalSince1970: Double(now.milliseconds - grace.milliseconds) / 1000)
        let listPrefix = prefix.isEmpty ? "" : prefix + "/"
        var token: String? = nil
        var removed = 0
        repeat {
            let page = try await answering {
                try await client.list(prefix: listPrefix, continuationToken: token, maxKeys: 1000)
            }
            let old = page.objects.filter { $0.lastModified < cutoff }
            let named = old.map { (name: $0.key, key: PhotoObjectKey.key(ofObjectName: $0.key, prefix: prefix)) }
            let keys = Array(Set(named.compactMap(\.key)))
            var inUse: Set<String> = []
            for start in stride(from: 0, to: keys.count, by: PhotoObjectSweep.batch) {
                let batch = Array(keys[start..<min(start + PhotoObjectSweep.batch, keys.count)])
                inUse.formUnion(try await rows.photoObjectKeysInUse(batch))
            }
            for object in named where object.key.map({ !inUse.contains($0) }) ?? true {
                try await answering { try await client.delete(key: object.name) }
                removed += 1
            }
            token = page.next
        } while token != nil
        return removed
    }

    /// One cheap request that shows whether the store answers again.
    func probe() async {
        _ = try? await answering { try await client.list(prefix: prefix, continuationToken: nil, maxKeys: 1) }
    }
}
