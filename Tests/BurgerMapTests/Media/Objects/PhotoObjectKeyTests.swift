import BurgerMap
import BurgerMapCore
import Foundation
import Testing

/// The naming rule of photo objects and the parsing of `--photo-urls`.
@Suite("photo object keys and URL modes")
struct PhotoObjectKeyTests {
    @Test("a random key is a lowercase UUID, never a photo id, and round-trips through its object names")
    func randomKeys() {
        var seen: Set<String> = []
        for _ in 0..<1000 {
            let key = PhotoObjectKey.random()
            #expect(key.count == 36 && key == key.lowercased())
            #expect(PhotoObjectKey.photoID(ofKey: key) == nil)
            for thumbnail in [false, true] {
                let name = PhotoObjectKey.objectName(prefix: "service/photos", key: key, thumbnail: thumbnail)
                #expect(PhotoObjectKey.key(ofObjectName: name, prefix: "service/photos") == key)
            }
            seen.insert(key)
        }
        #expect(seen.count == 1000)
    }

    @Test("a migrated photo is stored under its id; other names are nobody's")
    func names() {
        #expect(PhotoObjectKey.resolved(photoID: 42, objectKey: nil) == "42")
        #expect(PhotoObjectKey.objectName(prefix: "", key: "42", thumbnail: true) == "42.thumb.jpg")
        #expect(PhotoObjectKey.key(ofObjectName: "42.jpg", prefix: "") == "42")
        #expect(PhotoObjectKey.photoID(ofKey: "42") == 42)
        for name in [
            "p/042.jpg", "p/0.jpg", "p/-1.jpg", "p/notes.txt", "p/abc.jpg", "q/42.jpg", "p/42.png",
            "p/sub/42.jpg", "p/" + UUID().uuidString + ".jpg", "p/access-check-1.jpg",
        ] {
            #expect(PhotoObjectKey.key(ofObjectName: name, prefix: "p") == nil, "\(name)")
        }
    }

    @Test("--photo-urls takes proxy, redirect within SigV4's 7 days, and absolute http(s) public bases")
    func links() {
        #expect(PhotoLinks(argument: "proxy", ttl: 3600) == .proxy)
        #expect(PhotoLinks(argument: "redirect", ttl: 3600) == .redirect(ttl: 3600))
        #expect(PhotoLinks(argument: "redirect", ttl: 604_801) == nil)
        #expect(PhotoLinks(argument: "redirect", ttl: 0) == nil)
        #expect(PhotoLinks(argument: "public:https://cdn.example", ttl: 1) == .publicBase("https://cdn.example/"))
        #expect(PhotoLinks(argument: "public:https://cdn.example/p/", ttl: 1) == .publicBase("https://cdn.example/p/"))
        for bad in ["public:", "public:cdn.example/", "public:ftp://cdn.example/", "public:https:///x", "cdn", ""] {
            #expect(PhotoLinks(argument: bad, ttl: 1) == nil, "\(bad)")
        }
    }
}
