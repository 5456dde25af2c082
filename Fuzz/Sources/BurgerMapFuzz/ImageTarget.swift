import CImageCodec
import Foundation

@testable import BurgerMap
@testable import BurgerMapCore

/// The photo pipeline: JPEG header and EXIF orientation reading, then the whole of
/// `PhotoProcessor` (decode, resize, turn, encode) on JPEG and PNG bytes, once on one thread and
/// once with the decoder and encoder running side by side; and the C resampling and turning
/// functions with buffers one byte short.
///
/// Input: the file.
///
/// Invariants: an EXIF orientation is 1...8; the size libjpeg reads is the size the frame-header
/// walk declares; both ways of processing give the same files or the same kind of error, and the
/// borrowed core comes back; a refusal is never "out of memory"; stored files are baseline JPEGs
/// no larger than the limits that decode to the size they claim; and a C function given a buffer
/// too small refuses it without touching it (AddressSanitizer watches the bytes around).
enum ImageTarget {
    /// Limits that keep every input fast: at most 256 × 256 pixels declared.
    static let processor: PhotoProcessor = {
        var processor = PhotoProcessor()
        processor.maxPixels = 1 << 16
        processor.fullSide = 48
        processor.thumbnailSide = 16
        return processor
    }()

    static func run(_ data: UnsafeRawBufferPointer) {
        if ImageFormat.detect(data) == .jpeg { checkHeaders(data) }
        let serial = Result { () throws(ImageError) in try processor.process(data) }
        let cores = CoreBudget(cores: 2)
        let pipelined = Result { () throws(ImageError) in try processor.process(data, cores: cores) }
        require(cores.borrow() && cores.borrow() && !cores.borrow(), "a borrowed core was not given back")
        switch (serial, pipelined) {
        case (.success(let one), .success(let other)):
            require(one.full == other.full && one.thumbnail == other.thumbnail, "the two ways give different files")
            checkStored(one)
            checkBufferSizes(one)
        case (.failure(let one), .failure(let other)):
            require(kind(one) == kind(other), "errors differ: \(one) and \(other)")
            require(one != .outOfMemory, "out of memory for \(data.count) bytes")
            if case .tooManyPixels(let width, let height) = one {
                require(width * height > processor.maxPixels, "\(width) × \(height) refused")
            }
        default:
            require(false, "one way succeeds, the other fails: \(serial), \(pipelined)")
        }
    }

    static func checkHeaders(_ data: UnsafeRawBufferPointer) {
        let declared = PhotoProcessor.declaredJPEGSize(data)
        guard let reader = try? JPEGReader(data) else { return }
        let info = reader.info
        require((1...8).contains(info.orientation), "orientation \(info.orientation)")
        if let declared {
            require(
                declared.width == Int(info.width) && declared.height == Int(info.height),
                "frame header walk says \(declared), libjpeg \(info.width) × \(info.height)")
        }
    }

    static func checkStored(_ photo: ProcessedPhoto) {
        require(photo.width <= processor.fullSide && photo.height <= processor.fullSide, "full size")
        require(photo.thumbnailWidth <= processor.thumbnailSide && photo.thumbnailHeight <= processor.thumbnailSide, "")
        for (file, width, height) in [
            (photo.full, photo.width, photo.height), (photo.thumbnail, photo.thumbnailWidth, photo.thumbnailHeight),
        ] {
            file.withUnsafeBytes { bytes in
                guard let reader = try? JPEGReader(bytes) else {
                    require(false, "a stored file does not open")
                    return
                }
                let info = reader.info
                require(info.progressive == 0, "a stored file is not baseline")
                require(
                    Int(info.width) == width && Int(info.height) == height, "a stored file is not \(width) × \(height)")
                require(info.orientation == 1, "a stored file keeps an orientation")
            }
        }
    }

    /// The C functions refuse buffers one byte short, and write nothing.
    static func checkBufferSizes(_ photo: ProcessedPhoto) {
        let (width, height) = (photo.thumbnailWidth, photo.thumbnailHeight)
        let count = width * height * 3
        let source = [UInt8](repeating: 200, count: count)
        var message = [CChar](repeating: 0, count: 128)
        for (sourceCount, targetCount) in [(count - 1, count), (count, count - 1)] {
            var target = [UInt8](repeating: 7, count: targetCount)
            let resized = bm_resize_rgb(
                source, sourceCount, Int32(width), Int32(height), &target, targetCount, Int32(width), Int32(height),
                &message, message.count)
            let turned = bm_orient_rgb(
                source, sourceCount, Int32(width), Int32(height), 6, &target, targetCount, &message, message.count)
            require(resized == Int32(BM_IMAGE_ERROR) && turned == Int32(BM_IMAGE_ERROR), "a short buffer accepted")
            require(target.allSatisfy { $0 == 7 }, "a refused call wrote pixels")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        let encoded = bm_jpeg_encode(
            source, count - 1, Int32(width), Int32(height), Int32(BM_COLOR_RGB), 80, 0, &output, &outputSize, &message,
            message.count)
        require(encoded == Int32(BM_IMAGE_ERROR) && output == nil, "the encoder read a short buffer")
    }

    private static func kind(_ error: ImageError) -> String {
        switch error {
        case .unsupportedType: "unsupported"
        case .tooManyPixels: "too many pixels"
        case .corrupt: "corrupt"
        case .outOfMemory: "out of memory"
        }
    }
}
