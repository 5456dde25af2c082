import BurgerMapCore
import Foundation

extension OSMFixture {
    static let burger = [("amenity", "fast_food"), ("cuisine", "burger")]

    /// Tagged nodes in Hangul, kana and Latin, areas of every shape the reader handles, and the
    /// objects it must ignore or report. Lengths in 1e-7 degrees: `g` is 100 (about 1 m).
    static func sample() -> OSMFixture {
        var f = OSMFixture()
        let both = Self.both
        let allFood = Self.allFoodOnly
        f.placeNode(
            1, 375_012_345, 1_270_012_345,
            burger + [("name", "수제버거 하우스"), ("name:ko", "수제버거 하우스"), ("name:en", "Handmade Burger House")], both)
        f.placeNode(
            2, 356_812_345, 1_397_654_321,
            [
                ("amenity", "restaurant"), ("cuisine", "american; Burger ;steak"), ("name", "バーガー屋"),
                ("name:ja", "バーガー屋"), ("name:en", "Burger Shop"),
            ], both)
        f.placeNode(3, -338_688_000, 1_512_093_000, burger + [("name:en", "English Only Burger")], both)
        f.placeNode(4, 375_020_000, 1_270_020_000, [("amenity", "cafe"), ("name", "Café \"Latte\" & Co <1>")], allFood)
        f.placeNode(
            5, 375_030_000, 1_270_030_000, [("amenity", "restaurant"), ("cuisine", "pizza"), ("name", "Pizza")], allFood
        )
        f.placeNode(6, 375_040_000, 1_270_040_000, [("amenity", "fast_food"), ("cuisine", "burgers;chicken")], allFood)
        f.placeNode(7, 375_050_000, 1_270_050_000, [("shop", "bakery"), ("name", "Bakery")], [])
        f.placeNode(8, 375_060_000, 1_270_060_000, [("amenity", "bench")], [])
        f.placeNode(9, 375_070_000, 1_270_070_000, [("cuisine", "burger"), ("name", "No amenity")], [])
        f.placeNode(10, 375_080_000, 1_270_080_000, [("amenity", "food_court"), ("cuisine", "Burger")], allFood)
        f.placeNode(11, 375_090_000, -1_270_090_000, [("amenity", "fast_food"), ("cuisine", " BURGER ")], both)

        // A rectangle: its centre.
        let (lat0, lon0): (Int64, Int64) = (375_100_000, 1_270_100_000)
        f.area(
            100, [(lat0, lon0), (lat0, lon0 + 3000), (lat0 + 2000, lon0 + 3000), (lat0 + 2000, lon0)],
            burger + [("name", "Rect Burger")], both, center: (lat0 + 1000, lon0 + 1500))
        // A U of three rectangles (base 10×2, left arm 2×8, right arm 3×8, in g): the centroid
        // (area-weighted centres of the parts) lies between the arms, so the pin goes to the
        // middle of the wider arm along the centroid's latitude.
        let g: Int64 = 100
        let (uLat, uLon): (Int64, Int64) = (375_200_000, 1_270_200_000)
        let u: [(Int64, Int64)] = [(0, 0), (0, 10), (10, 10), (10, 7), (2, 7), (2, 2), (10, 2), (10, 0)]
        let parts: [(area: Double, y: Double)] = [(20, 1), (16, 6), (24, 6)]
        let uY = parts.reduce(0) { $0 + $1.area * $1.y } / 60
        f.area(
            101, u.map { (uLat + $0.0 * g, uLon + $0.1 * g) }, [("amenity", "restaurant"), ("cuisine", "burger")],
            both, at: ((Double(uLat) + uY * Double(g)) / 1e7, (Double(uLon) + 8.5 * Double(g)) / 1e7))
        // An open way is no area; an untagged one no place.
        f.ways.append(
            Way(
                id: 102,
                refs: [
                    f.point(375_110_000, 1_270_110_000), f.point(375_110_100, 1_270_110_100),
                    f.point(375_110_200, 1_270_110_000),
                ], tags: burger))
        // A closed way with a node outside the extract.
        let a = f.point(375_120_000, 1_270_120_000)
        f.ways.append(Way(id: 103, refs: [a, f.point(375_120_000, 1_270_120_500), 999_999, a], tags: burger))
        f.skip("way/103", both, "way/103: node 999999 is missing from the extract")
        f.area(
            104,
            [
                (375_130_000, 1_270_130_000), (375_130_000, 1_270_130_400), (375_130_600, 1_270_130_400),
                (375_130_600, 1_270_130_000),
            ], [("amenity", "cafe"), ("name", "Square Cafe")], allFood,
            center: (375_130_300, 1_270_130_200))
        f.ways.append(
            Way(
                id: 105,
                refs: f.ring([
                    (375_140_000, 1_270_140_000), (375_140_000, 1_270_140_100),
                    (375_140_100, 1_270_140_100),
                ])))
        // Across the antimeridian: the centre is on it (±180), not at 0° around the globe.
        f.area(
            106,
            [
                (100_000_000, 1_799_999_000), (100_000_000, -1_799_999_000), (100_002_000, -1_799_999_000),
                (100_002_000, 1_799_999_000),
            ], burger, both, center: (100_001_000, 1_800_000_000))
        // All nodes on a line: no area, the mean of the nodes.
        f.area(
            107, [(375_300_000, 1_270_300_000), (375_300_100, 1_270_300_100), (375_300_300, 1_270_300_300)], burger,
            both, at: ((375_300_000 + 400 / 3.0) / 1e7, (1_270_300_000 + 400 / 3.0) / 1e7))

        // A multipolygon: a 10×10 square from two outer ways (the second runs the other way
        // round, one with an empty role) and a hole x 3–6, y 3–7 that holds the square's centre:
        // the pin goes to the middle of the wider side, x 6–10, at y 5.
        let (mLat, mLon): (Int64, Int64) = (375_400_000, 1_270_400_000)
        let corner = [(0, 0), (0, 10), (10, 10), (10, 0)].map { f.point(mLat + $0.0 * g, mLon + $0.1 * g) }
        f.ways.append(Way(id: 200, refs: [corner[0], corner[1], corner[2]]))
        f.ways.append(Way(id: 201, refs: [corner[0], corner[3], corner[2]]))
        f.ways.append(
            Way(id: 202, refs: f.ring([(3, 3), (3, 6), (7, 6), (7, 3)].map { (mLat + $0.0 * g, mLon + $0.1 * g) })))
        let multipolygon = [("type", "multipolygon")] + burger + [("name", "Courtyard Burger")]
        f.relations.append(
            Relation(
                id: 200,
                members: [
                    ("way", 200, "outer"), ("way", 201, ""), ("way", 202, "inner"),
                    ("node", 1, "label"),
                ], tags: multipolygon))
        f.expect("relation/200", both, Double(mLat + 5 * g) / 1e7, Double(mLon + 8 * g) / 1e7, multipolygon)
        f.relations.append(
            Relation(id: 201, members: [("way", 9999, "outer")], tags: [("type", "multipolygon")] + burger))
        f.skip("relation/201", both, "relation/201: member way 9999 is missing from the extract")
        let open = [
            f.point(375_500_000, 1_270_500_000), f.point(375_500_000, 1_270_500_500),
            f.point(375_500_500, 1_270_500_500),
        ]
        f.ways.append(Way(id: 203, refs: open))
        f.relations.append(
            Relation(id: 202, members: [("way", 203, "outer")], tags: [("type", "multipolygon")] + burger))
        f.skip(
            "relation/202", both,
            "relation/202: its outer ways do not close: the ring from way 203 ends at node \(open[2]) with no way to continue"
        )
        f.relations.append(Relation(id: 203, members: [("way", 200, "")], tags: [("type", "route")] + burger))
        // Two outer rings: the larger one places the pin.
        f.ways.append(
            Way(
                id: 205,
                refs: f.ring([
                    (375_600_000, 1_270_600_000), (375_600_000, 1_270_600_100),
                    (375_600_100, 1_270_600_100), (375_600_100, 1_270_600_000),
                ])))
        f.ways.append(
            Way(
                id: 206,
                refs: f.ring([
                    (375_610_000, 1_270_610_000), (375_610_000, 1_270_611_000),
                    (375_611_000, 1_270_611_000), (375_611_000, 1_270_610_000),
                ])))
        let cafe = [("type", "multipolygon"), ("amenity", "cafe")]
        f.relations.append(Relation(id: 204, members: [("way", 205, "outer"), ("way", 206, "outer")], tags: cafe))
        f.expect("relation/204", allFood, 37.56105, 127.06105, cafe)
        return f
    }

    /// A closed way around `corners` with `tags`, expected at `center` (1e-7 degrees).
    mutating func area(
        _ id: Int64, _ corners: [(Int64, Int64)], _ tags: [(String, String)], _ filters: Set<OSMPlaceFilter>,
        center: (Int64, Int64)
    ) {
        area(id, corners, tags, filters, at: (Double(center.0) / 1e7, Double(center.1) / 1e7))
    }

    /// A closed way around `corners` with `tags`, expected at `at` (degrees).
    mutating func area(
        _ id: Int64, _ corners: [(Int64, Int64)], _ tags: [(String, String)], _ filters: Set<OSMPlaceFilter>,
        at: (Double, Double)
    ) {
        ways.append(Way(id: id, refs: ring(corners), tags: tags))
        expect("way/\(id)", filters, at.0, at.1, tags)
    }
}
