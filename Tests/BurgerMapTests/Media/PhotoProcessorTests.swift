import Foundation
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The image pipeline on real libjpeg and libpng: every kind of file a phone or a person sends.
@Suite struct PhotoProcessorTests {
    let processor = PhotoProcessor()

    func process(_ bytes: [UInt8]) throws -> ProcessedPhoto {
        try bytes.withUnsafeBytes { try processor.process($0) }
    }

    /// The four quadrant colours of an image: top-left, top-right, bottom-left, bottom-right.
    func quadrants(_ image: RGBImage) -> [[UInt8]] {
        let (w, h) = (image.width, image.height)
        return [(w / 4, h / 4), (3 * w / 4, h / 4), (w / 4, 3 * h / 4), (3 * w / 4, 3 * h / 4)].map {
            TestImages.pixel(image, x: $0.0, y: $0.1)
        }
    }

    @Test func largePhotoIsShrunkToTheLimitsAndKeepsItsAspect() throws {
        let photo = try process(TestImages.noisyJPEG(width: 3000, height: 1000))
        #expect(photo.width == 2048)
        #expect(photo.height == 683)
        #expect(photo.thumbnailWidth == 400)
        #expect(photo.thumbnailHeight == 133)
        let full = try TestImages.decode(photo.full)
        #expect(full.width == photo.width && full.height == photo.height)
        let thumbnail = try TestImages.decode(photo.thumbnail)
        #expect(thumbnail.width == 400 && thumbnail.height == 133)
    }

    @Test func smallPhotoIsNeverEnlarged() throws {
        let photo = try process(TestImages.jpeg(width: 300, height: 200))
        #expect(photo.width == 300 && photo.height == 200)
        #expect(photo.thumbnailWidth == 300 && photo.thumbnailHeight == 200)
    }

    @Test(arguments: [
        (1, [0, 1, 2, 3]), (2, [1, 0, 3, 2]), (3, [3, 2, 1, 0]), (4, [2, 3, 0, 1]),
        (5, [0, 2, 1, 3]), (6, [2, 0, 3, 1]), (7, [3, 1, 2, 0]), (8, [1, 3, 0, 2]),
    ])
    func exifOrientationIsAppliedToThePixels(orientation: Int, expected: [Int]) throws {
        let source = TestImages.withEXIF(TestImages.jpeg(width: 320, height: 200), orientation: UInt16(orientation))
        let photo = try process(source)
        let turned = orientation >= 5
        #expect(photo.width == (turned ? 200 : 320))
        #expect(photo.height == (turned ? 320 : 200))
        let colors = quadrants(try TestImages.decode(photo.full))
        for (index, quadrant) in expected.enumerated() {
            #expect(
                TestImages.close(colors[index], TestImages.quadrantColors[quadrant]),
                "orientation \(orientation), quadrant \(index): \(colors[index])")
        }
    }

    @Test func storedFilesAreBaselineWithNoMetadata() throws {
        let source = TestImages.withEXIF(TestImages.jpeg(progressive: true), orientation: 6, gps: true)
        #expect(TestImages.markers(source).contains(0xE1))
        #expect(TestImages.markers(source).contains(0xC2))
        let photo = try process(source)
        for file in [photo.full, photo.thumbnail] {
            let markers = TestImages.markers(file)
            #expect(markers.contains(0xC0), "baseline SOF0")
            #expect(!markers.contains(0xC2), "not progressive")
            #expect(
                markers.allSatisfy { !(0xE1...0xEF).contains($0) && $0 != 0xFE }, "no APPn but JFIF, no COM: \(markers)"
            )
            let text = String(decoding: file, as: UTF8.self)
            #expect(!text.contains("Exif") && !text.contains("MM\0*"))
        }
    }

    @Test func cmykAndGrayscaleComeOutAsCorrectRGB() throws {
        let red = try TestImages.decode(try process(TestImages.cmykRedJPEG()).full)
        #expect(TestImages.close(TestImages.pixel(red, x: 80, y: 60), [255, 0, 0], tolerance: 12))
        let gray = try TestImages.decode(try process(TestImages.grayscaleJPEG()).full)
        #expect(TestImages.close(TestImages.pixel(gray, x: 40, y: 50), [40, 40, 40], tolerance: 8))
        #expect(TestImages.close(TestImages.pixel(gray, x: 160, y: 50), [210, 210, 210], tolerance: 8))
    }

    @Test func pngTransparencyIsCompositedOverWhite() throws {
        let image = try TestImages.decode(try process(TestImages.transparentPNG()).full)
        #expect(image.width == 64 && image.height == 32)
        #expect(TestImages.close(TestImages.pixel(image, x: 8, y: 16), [255, 255, 255], tolerance: 8))
        #expect(TestImages.close(TestImages.pixel(image, x: 56, y: 16), [220, 20, 20], tolerance: 24))
    }

    @Test func otherFileTypesAreUnsupported() {
        for bytes in [TestImages.gif, TestImages.pdf, TestImages.heic, Array("just text".utf8)] {
            #expect(throws: ImageError.unsupportedType) { try process(bytes) }
        }
    }

    @Test func emptyTruncatedAndCorruptFilesAreInvalid() {
        let jpeg = TestImages.noisyJPEG(width: 400, height: 300)
        let png = TestImages.transparentPNG()
        var corrupt = jpeg
        for index in stride(from: 700, to: corrupt.count - 2, by: 50) { corrupt[index] = 0xFF }
        for bytes in [[], Array(jpeg.prefix(jpeg.count / 2)), Array(jpeg.prefix(300)), Array(png.prefix(60)), corrupt] {
            #expect {
                try process(bytes)
            } throws: { error in
                if case ImageError.corrupt = error { return true }
                return false
            }
        }
    }

    @Test func declaredSizeOverFiftyMegapixelsIsRefusedBeforeDecoding() {
        let bomb = TestImages.withDeclaredSize(TestImages.jpeg(), width: 65535, height: 65535)
        #expect(throws: ImageError.tooManyPixels(width: 65535, height: 65535)) { try process(bomb) }
        let wide = TestImages.withDeclaredSize(TestImages.jpeg(), width: 10000, height: 5001)
        #expect(throws: ImageError.tooManyPixels(width: 10000, height: 5001)) { try process(wide) }
        let png = TestImages.transparentPNG(declaredSize: (8000, 7000))
        #expect(throws: ImageError.tooManyPixels(width: 8000, height: 7000)) { try process(png) }
    }

    @Test func encodingWhileDecodingOnASpareCoreGivesTheSameFiles() throws {
        let source = TestImages.noisyJPEG(width: 4000, height: 1000)
        let cores = CoreBudget(cores: 2)
        cores.occupy()
        let serial = try source.withUnsafeBytes { try processor.process($0) }
        let pipelined = try source.withUnsafeBytes { try processor.process($0, cores: cores) }
        #expect(pipelined.width == 2000 && pipelined.height == 500)
        #expect(pipelined.full == serial.full)
        #expect(pipelined.thumbnail == serial.thumbnail)
        #expect(cores.borrow(), "the borrowed core was given back")
        #expect(!cores.borrow(), "no third core")
        let spare = CoreBudget(cores: 2)
        spare.occupy()
        let truncated = Array(source.prefix(source.count / 3))
        #expect {
            try truncated.withUnsafeBytes { try processor.process($0, cores: spare) }
        } throws: { error in
            if case ImageError.corrupt = error { return true }
            return false
        }
        #expect(spare.borrow() && !spare.borrow(), "given back after a failure too")
    }

    @Test func decodeScaleKeepsEnoughPixelsForTheTarget() {
        #expect(PhotoProcessor.scaleNumerator(longestSide: 2048, target: 2048) == 8)
        #expect(PhotoProcessor.scaleNumerator(longestSide: 3000, target: 2048) == 8)
        #expect(PhotoProcessor.scaleNumerator(longestSide: 4000, target: 2048) == 4)
        #expect(PhotoProcessor.scaleNumerator(longestSide: 8000, target: 2048) == 2)
        #expect(PhotoProcessor.scaleNumerator(longestSide: 20000, target: 400) == 1)
    }
}
