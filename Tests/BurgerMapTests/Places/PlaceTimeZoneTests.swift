import BurgerMapCore
import Foundation
import Testing

@Suite("PlaceTimeZone")
struct PlaceTimeZoneTests {
    @Test(
        "IANA zone names are accepted, as themselves",
        arguments: [
            "Asia/Seoul", "Europe/Berlin", "America/New_York", "America/Argentina/Buenos_Aires", "Asia/Kolkata",
            "Asia/Ho_Chi_Minh", "America/Port-au-Prince", "Australia/Lord_Howe", "Etc/UTC",
        ])
    func accepted(name: String) throws {
        let zone = try #require(PlaceTimeZone.zone(named: name))
        #expect(zone.identifier == name)
        // A second look-up (from the cache) answers the same.
        #expect(PlaceTimeZone.zone(named: name) == zone)
    }

    @Test("UTC is accepted and has no offset")
    func utc() throws {
        let zone = try #require(PlaceTimeZone.zone(named: "UTC"))
        #expect(zone.secondsFromGMT(for: Date(timeIntervalSince1970: 1_718_000_000)) == 0)
    }

    @Test(
        "abbreviations, offsets, legacy links and unknown or malformed names are refused",
        arguments: [
            "KST", "EST", "CET", "EST5EDT", "GMT", "GMT+9", "GMT+09:00", "UTC+9", "Etc/GMT-9", "Etc/GMT", "US/Eastern",
            "Japan", "asia/seoul", "ASIA/SEOUL", "Asia/Nowhere", "Asia", "Asia/", "", " Asia/Seoul", "Asia/Seoul ",
            "Asia/Seoul/x", "Asia/../Asia/Seoul", "../etc/passwd", "posix/Asia/Seoul", "right/Asia/Seoul",
            "Asia/Seoul\u{0}", "Asia/서울", "utc", String(repeating: "Asia/Seoul", count: 20),
        ])
    func refused(name: String) {
        #expect(PlaceTimeZone.zone(named: name) == nil, "\(name.debugDescription)")
    }

    @Test("every zone Foundation lists in an IANA region is accepted")
    func knownZones() {
        let regions = [
            "Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific",
        ]
        let listed = TimeZone.knownTimeZoneIdentifiers.filter { name in
            regions.contains { name.hasPrefix($0 + "/") }
        }
        #expect(listed.count > 300)
        #expect(listed.filter { PlaceTimeZone.zone(named: $0) == nil } == [])
    }
}
