/// Positions along a Hilbert curve over the globe: points close on the curve are close on the
/// map, so inserting R*Tree entries in this order touches few tree nodes at a time.
enum HilbertCurve {
    /// The curve index of a point on a 65,536 × 65,536 grid over longitude and latitude.
    static func index(lat: Double, lng: Double) -> UInt32 {
        let side: UInt32 = 1 << 16
        var x = UInt32(max(0, min(Double(side - 1), (lng + 180) / 360 * Double(side))))
        var y = UInt32(max(0, min(Double(side - 1), (lat + 90) / 180 * Double(side))))
        var index: UInt32 = 0
        var step = side / 2
        while step > 0 {
            let rx: UInt32 = (x & step) > 0 ? 1 : 0
            let ry: UInt32 = (y & step) > 0 ? 1 : 0
            index &+= step &* step &* ((3 &* rx) ^ ry)
            if ry == 0 {
                if rx == 1 {
                    x = side - 1 - x
                    y = side - 1 - y
                }
                swap(&x, &y)
            }
            step /= 2
        }
        return index
    }
}
