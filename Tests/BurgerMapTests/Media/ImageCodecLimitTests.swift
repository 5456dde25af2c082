import CImageCodec
import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The C codec's own guards: the progressive scan limit, and buffer sizes checked before any
/// byte is touched.
@Suite struct ImageCodecLimitTests {
    let processor = PhotoProcessor()

    /// A test image from Tests/BurgerMapTests/Resources (made by Fuzz/make-corpus with cjpeg).
    static func resource(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Resources/\(name)", withExtension: nil))
        return [UInt8](try Data(contentsOf: url))
    }

    func process(_ bytes: [UInt8], cores: CoreBudget? = nil) throws -> ProcessedPhoto {
        try bytes.withUnsafeBytes { try processor.process($0, cores: cores) }
    }

    /// Both files are valid progressions of a 16 × 16 greyscale image (`djpeg -strict -maxscans
    /// 101` decodes both without a warning); they differ by one refinement scan.
    @Test func aProgressiveJPEGWithOneHundredScansIsDecoded() throws {
        let photo = try process(try Self.resource("progressive-100-scans.jpg"))
        #expect(photo.width == 16 && photo.height == 16)
        let image = try TestImages.decode(photo.full)
        #expect(image.width == 16 && image.height == 16)
    }

    @Test(arguments: [false, true])
    func aProgressiveJPEGWithOneHundredAndOneScansIsRefused(spareCore: Bool) throws {
        let source = try Self.resource("progressive-101-scans.jpg")
        let cores = CoreBudget(cores: 2)
        #expect(throws: ImageError.corrupt("JPEG has more than 100 scans (scan 101 refused)")) {
            try process(source, cores: spareCore ? cores : nil)
        }
        #expect(cores.borrow() && cores.borrow(), "the core is given back")
    }

    /// Repeating a scan is only a warning to libjpeg, which would decode the same coefficients
    /// again for every copy: the decoder stops at the first warning instead.
    @Test func aRepeatedScanIsRefusedAtTheFirstWarning() throws {
        let source = try Self.resource("progressive-100-scans.jpg")
        let lastScan = try #require(Self.lastScanStart(source))
        let repeated =
            Array(source[..<(source.count - 2)]) + Array(source[lastScan..<(source.count - 2)]) + [0xFF, 0xD9]
        #expect(throws: ImageError.corrupt("Inconsistent progression sequence for component 0 coefficient 36")) {
            try process(repeated)
        }
    }

    /// The offset of the last DHT or SOS segment that starts the final scan.
    static func lastScanStart(_ jpeg: [UInt8]) -> Int? {
        var index = 2
        var lastScan: Int?
        var tablesBefore: Int?
        while index + 4 <= jpeg.count, jpeg[index] == 0xFF {
            let marker = jpeg[index + 1]
            if marker == 0xD9 { break }
            if marker == 0xC4, tablesBefore == nil { tablesBefore = index }
            var end = index + 2 + (Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3]))
            if marker == 0xDA {
                lastScan = tablesBefore ?? index
                while end + 1 < jpeg.count,
                    !(jpeg[end] == 0xFF && jpeg[end + 1] != 0 && !(0xD0...0xD7).contains(jpeg[end + 1]))
                {
                    end += 1
                }
            }
            if marker != 0xC4 { tablesBefore = nil }
            index = end
        }
        return lastScan
    }

    @Test(arguments: StoreEngine.available) func theUploadRouteAnswersInvalidImageForTooManyScans(engine: StoreEngine)
        async throws
    {
        let environment = try await TestEnvironment(engine)
        let source = try Self.resource("progressive-101-scans.jpg")
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            let response = try await client.postReview(place: place, rating: "5", photos: [source], token: alice.token)
            #expect(response.status == .badRequest)
            #expect(try problemCode(response) == "invalid_image")
            #expect(try await environment.reviewRowCounts() == (0, 0))
        }
    }

    @Test func resamplingAndTurningRefuseBuffersTooSmallWithoutWriting() {
        let source = [UInt8](repeating: 90, count: 4 * 3 * 3)
        var message = [CChar](repeating: 0, count: 128)
        for (sourceCount, targetCount) in [(35, 12), (36, 11)] {
            var target = [UInt8](repeating: 7, count: 36)
            let resized = bm_resize_rgb(source, sourceCount, 4, 3, &target, targetCount, 2, 2, &message, message.count)
            #expect(resized == Int32(BM_IMAGE_ERROR))
            #expect(String(cString: message).contains("buffer smaller than its image"))
            #expect(target.allSatisfy { $0 == 7 })
        }
        for (sourceCount, targetCount) in [(35, 36), (36, 35)] {
            var target = [UInt8](repeating: 7, count: 36)
            let turned = bm_orient_rgb(source, sourceCount, 4, 3, 6, &target, targetCount, &message, message.count)
            #expect(turned == Int32(BM_IMAGE_ERROR))
            #expect(target.allSatisfy { $0 == 7 })
        }
        var target = [UInt8](repeating: 7, count: 36)
        #expect(bm_orient_rgb(source, 36, 4, 3, 9, &target, 36, &message, message.count) == Int32(BM_IMAGE_ERROR))
        #expect(String(cString: message) == "orientation is not 1...8")
        #expect(bm_orient_rgb(source, 36, 4, 3, 6, &target, 36, &message, message.count) == Int32(BM_IMAGE_OK))
        #expect(target.allSatisfy { $0 == 90 })
    }

    @Test func encodingRefusesAPixelBufferSmallerThanTheImage() {
        let pixels = [UInt8](repeating: 128, count: 8 * 8 * 3)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        var message = [CChar](repeating: 0, count: 128)
        let status = bm_jpeg_encode(
            pixels, pixels.count - 1, 8, 8, Int32(BM_COLOR_RGB), 80, 0, &output, &outputSize, &message, message.count)
        #expect(status == Int32(BM_IMAGE_ERROR))
        #expect(output == nil)
        #expect(String(cString: message) == "pixel buffer smaller than the image")
        let huge = bm_jpeg_encode(
            pixels, pixels.count, 1 << 21, 8, Int32(BM_COLOR_RGB), 80, 0, &output, &outputSize, &message, message.count)
        #expect(huge == Int32(BM_IMAGE_ERROR))
        #expect(String(cString: message) == "image side out of range")
    }

    @Test func decodingRefusesAPixelBufferSmallerThanTheImage() throws {
        let jpeg = TestImages.jpeg(width: 20, height: 10)
        var info = bm_jpeg_info()
        var message = [CChar](repeating: 0, count: 128)
        var pixels = [UInt8](repeating: 7, count: 20 * 10 * 3 - 1)
        let status = jpeg.withUnsafeBufferPointer { bytes in
            let reader = bm_jpeg_open(bytes.baseAddress, bytes.count, &info, &message, message.count)
            defer { bm_jpeg_close(reader) }
            return bm_jpeg_decode_rgb(reader, 8, &pixels, pixels.count, &message, message.count)
        }
        #expect(info.width == 20 && info.height == 10)
        #expect(status == Int32(BM_IMAGE_ERROR))
        #expect(String(cString: message) == "pixel buffer too small for the decoded image")
        #expect(pixels.allSatisfy { $0 == 7 })
    }
}
