import Foundation
import GRDB
import Testing

@testable import BurgerMap
@testable import BurgerMapCore
@testable import BurgerMapSQLite

@Suite("One rule per field: API, importer and schema")
struct FieldRuleTests {
    /// 61 "family" emoji of five code points each: 61 characters as people count them, 305 code
    /// points as the schema counts them.
    static let familyName = String(repeating: "👨‍👩‍👧", count: 61)

    @Test("the control-character scan is Unicode's general category Cc, for every code point")
    func controlsByValue() {
        // The one-pass byte scan agrees with Unicode's category Cc, code point by code point.
        var scanMismatches: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(Character(scalar)) + "b"
            let scanned = TextField.codePointsAndControls(text, allowingLineBreaks: false)
            if scanned.count != 3 || scanned.hasControl != (scalar.properties.generalCategory == .control) {
                scanMismatches.append(value)
            }
        }
        #expect(scanMismatches.isEmpty)
        #expect(TextField.codePointsAndControls("a\nb\tc\r", allowingLineBreaks: true) == (6, false))
        #expect(TextField.codePointsAndControls("a\nb", allowingLineBreaks: false) == (3, true))
        // Code points counted from UTF-8 bytes: one, two, three and four bytes each.
        #expect(TextField.placeName.problem(String(repeating: "a", count: 300)) == nil)
        #expect(TextField.placeName.problem(String(repeating: "가", count: 300)) == nil)
        #expect(TextField.placeName.problem(String(repeating: "é", count: 301))?.code == "too_long")
        #expect(TextField.placeName.problem(String(repeating: "🍔", count: 300)) == nil)
        #expect(TextField.placeName.problem(String(repeating: "🍔", count: 301))?.code == "too_long")
        #expect(TextField.placeName.problem("Burger\u{85}Bar")?.code == "control_characters")
    }

    @Test("an import skips rows that break a field's rule, says the real bound, and stores the rest")
    func importSkipsBadTexts() async throws {
        let environment = try TestEnvironment()
        let longAddress = String(repeating: "a", count: 501)
        let csv = try environment.file(
            "rules.csv",
            """
            name,lat,lng,id,address,phone
            \(Self.familyName),37.5,127.0,f1,,
            \(String(repeating: "x", count: 301)),37.5,127.0,f2,,
            \(String(repeating: "가", count: 300)),37.5,127.0,f3,,
            Long Address,37.5,127.0,f4,\(longAddress),
            Bell Phone,37.5,127.0,f5,,"12\u{7}3"
            Good Burger,37.51,127.01,f6,1 Main St,+82-2-1

            """)
        let summary = try PlaceImport(database: environment.database).run(file: csv)
        #expect(summary.inserted == 2)
        #expect(summary.skipped == 4)
        #expect(
            summary.skips.map(\.description) == [
                "line 2: name: name must be 1 to 300 characters (Unicode code points)",
                "line 3: name: name must be 1 to 300 characters (Unicode code points)",
                "line 5: address: address must be at most 500 characters (Unicode code points)",
                "line 6: phone: phone must not contain control characters",
            ])
        let stored = try await environment.database.nearbyPlaces(
            NearbyQuery(lat: 37.5, lng: 127.0, radiusM: 5_000, limit: 10))
        #expect(stored.items.map(\.place.externalId) == ["f3", "f6"])
    }

    @Test("the API answers the same name with the same rule and message", arguments: StoreEngine.available)
    func apiAgrees(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let body = try await client.register(email: "rules@example.com", nickname: "rules")
            let token = try tokens(body).access
            let refused = try await client.send(
                .post, "/v1/places", json: ["name": Self.familyName, "lat": 1, "lng": 2], token: token)
            #expect(refused.status == .badRequest)
            let error = (try json(refused)["errors"] as? [[String: Any]])?.first
            #expect(error?["field"] as? String == "name")
            #expect(error?["code"] as? String == "too_long")
            #expect(error?["message"] as? String == "name must be 1 to 300 characters (Unicode code points)")
            let longest = try await client.send(
                .post, "/v1/places", json: ["name": String(repeating: "가", count: 300), "lat": 1, "lng": 2],
                token: token)
            #expect(longest.status == .created)
        }
    }

    @Test("the schema's bound is the rule's: 300 code points are stored, 301 break the CHECK")
    func schemaAgrees() async throws {
        let environment = try TestEnvironment()
        func insert(_ name: String) async throws {
            try await environment.database.pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO places (name, lat, lng, created_at, updated_at, geom)
                        VALUES (?, 1, 2, 0, 0, MakePoint(2, 1, 4326))
                        """, arguments: [name])
            }
        }
        try await insert(String(repeating: "👨‍👩‍👧", count: 60))
        await #expect(throws: DatabaseError.self) { try await insert(Self.familyName) }
        await #expect(throws: DatabaseError.self) { try await insert(String(repeating: "x", count: 301)) }
    }
}
