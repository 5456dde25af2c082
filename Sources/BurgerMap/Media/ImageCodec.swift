import BurgerMapCore
import CImageCodec

/// Why an uploaded image was refused.
public enum ImageError: Error, Equatable, Sendable {
    /// Neither JPEG nor PNG by its bytes (`415 unsupported_media_type`).
    case unsupportedType
    /// The headers declare more pixels than allowed (`413 payload_too_large`).
    case tooManyPixels(width: Int, height: Int)
    /// Empty, truncated or corrupt (`400 invalid_image`); the message is the decoder's own and is
    /// logged, never sent.
    case corrupt(String)
    /// Memory could not be had for the pixels.
    case outOfMemory
}

/// The image types the service accepts, judged by their first bytes.
public enum ImageFormat: Sendable, Equatable {
    case jpeg
    case png

    /// The format of `bytes`, or `nil` for anything else (GIF, PDF, HEIC, text…).
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> ImageFormat? {
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if bytes.count >= 8, zip(bytes.prefix(8), pngSignature).allSatisfy({ $0 == $1 }) { return .png }
        return nil
    }
}

/// Pixels in RGB order, three bytes a pixel, rows top to bottom.
public struct RGBImage: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "RGB buffer size does not match its dimensions")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A copy scaled to `width` × `height` by area averaging (for downscaling).
    func resized(width targetWidth: Int, height targetHeight: Int) throws(ImageError) -> RGBImage {
        if targetWidth == width && targetHeight == height { return self }
        var target = [UInt8](repeating: 0, count: targetWidth * targetHeight * 3)
        var outOfMemory = false
        _ = try withImageMessage { message, size in
            let status = pixels.withUnsafeBufferPointer { source in
                target.withUnsafeMutableBufferPointer { target in
                    bm_resize_rgb(
                        source.baseAddress, source.count, Int32(width), Int32(height), target.baseAddress, target.count,
                        Int32(targetWidth), Int32(targetHeight), message, size)
                }
            }
            outOfMemory = status == Int32(BM_IMAGE_OUT_OF_MEMORY)
            return status == imageOK || outOfMemory ? () : nil
        }
        if outOfMemory { throw .outOfMemory }
        return RGBImage(width: targetWidth, height: targetHeight, pixels: target)
    }

    /// A copy turned upright by an EXIF orientation (1…8).
    func oriented(_ orientation: Int) throws(ImageError) -> RGBImage {
        guard (2...8).contains(orientation) else { return self }
        var target = [UInt8](repeating: 0, count: pixels.count)
        _ = try withImageMessage { message, size in
            pixels.withUnsafeBufferPointer { source in
                target.withUnsafeMutableBufferPointer { target in
                    bm_orient_rgb(
                        source.baseAddress, source.count, Int32(width), Int32(height), Int32(orientation),
                        target.baseAddress, target.count, message, size)
                }
            } == imageOK ? () : nil
        }
        let swaps = orientation >= 5
        return RGBImage(width: swaps ? height : width, height: swaps ? width : height, pixels: target)
    }
}

/// Calls a C function that reports failure with a status and a message buffer, and turns the
/// failure into `ImageError.corrupt`.
func withImageMessage<Result>(_ body: (UnsafeMutablePointer<CChar>, Int) -> Result?) throws(ImageError) -> Result {
    var message = [CChar](repeating: 0, count: 256)
    let result = message.withUnsafeMutableBufferPointer { buffer in body(buffer.baseAddress!, buffer.count) }
    guard let result else {
        throw .corrupt(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return result
}

private let imageOK = Int32(BM_IMAGE_OK)

/// A buffer for a decoder to fill. Not zeroed first: the decoders write every byte or fail, and
/// zeroing megabytes that are about to be overwritten was measurable.
private func pixelBuffer(_ count: Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
}

/// An open libjpeg decoder over bytes that outlive it; the C handle is freed when it goes.
struct JPEGReader: ~Copyable {
    private let handle: OpaquePointer
    /// What the headers declare.
    let info: bm_jpeg_info

    /// Reads the headers of `bytes` (which must stay valid while the reader lives).
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        var info = bm_jpeg_info()
        handle = try withImageMessage { message, size in
            bm_jpeg_open(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &info, message, size)
        }
        self.info = info
    }

    deinit { bm_jpeg_close(handle) }

    /// Decodes to RGB at DCT scale `scaleNumerator`/8, which libjpeg does far faster than
    /// decoding in full and shrinking.
    func decode(scaleNumerator: Int) throws(ImageError) -> RGBImage {
        var image = try scaledImage(scaleNumerator)
        _ = try withImageMessage { message, size in
            image.pixels.withUnsafeMutableBufferPointer { buffer in
                bm_jpeg_decode_rgb(handle, Int32(scaleNumerator), buffer.baseAddress, buffer.count, message, size)
            } == imageOK ? () : nil
        }
        return image
    }

    /// Decodes like `decode` and encodes the decoded image as a JPEG at the same time on a second
    /// thread (for images that need no turn and no resize).
    func decodeAndEncode(scaleNumerator: Int, quality: Int) throws(ImageError) -> (RGBImage, [UInt8]) {
        var image = try scaledImage(scaleNumerator)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        _ = try withImageMessage { message, size in
            image.pixels.withUnsafeMutableBufferPointer { buffer in
                bm_jpeg_decode_and_encode(
                    handle, Int32(scaleNumerator), buffer.baseAddress, buffer.count, Int32(quality), &output,
                    &outputSize, message, size)
            } == imageOK ? () : nil
        }
        return (image, takeImageBuffer(output, outputSize))
    }

    /// An image of the size a decode at `scaleNumerator`/8 produces, its pixels not yet written.
    private func scaledImage(_ scaleNumerator: Int) throws(ImageError) -> RGBImage {
        var width: Int32 = 0
        var height: Int32 = 0
        _ = try withImageMessage { message, size in
            bm_jpeg_scaled_size(handle, Int32(scaleNumerator), &width, &height, message, size) == imageOK ? () : nil
        }
        return RGBImage(width: Int(width), height: Int(height), pixels: pixelBuffer(Int(width) * Int(height) * 3))
    }
}

/// Copies a buffer that the C target allocated into an array and frees it.
private func takeImageBuffer(_ buffer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> [UInt8] {
    defer { bm_image_free(buffer) }
    return Array(UnsafeBufferPointer(start: buffer, count: count))
}

/// An open libpng decoder over bytes that outlive it.
struct PNGReader: ~Copyable {
    private let handle: OpaquePointer
    let width: Int
    let height: Int

    /// Reads the header of `bytes` (which must stay valid while the reader lives).
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        var width: Int32 = 0
        var height: Int32 = 0
        handle = try withImageMessage { message, size in
            bm_png_open(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &width, &height, message, size)
        }
        self.width = Int(width)
        self.height = Int(height)
    }

    deinit { bm_png_close(handle) }

    /// Decodes to RGB with transparency composited over white.
    func decode() throws(ImageError) -> RGBImage {
        var pixels = pixelBuffer(width * height * 3)
        _ = try withImageMessage { message, size in
            pixels.withUnsafeMutableBufferPointer { buffer in
                bm_png_decode_rgb(handle, buffer.baseAddress, buffer.count, message, size)
            } == imageOK ? () : nil
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }
}

/// Writes JPEG files with libjpeg: optimized Huffman tables, JFIF header, no other metadata.
public enum JPEGWriter {
    /// The colour model of the pixels given to `encode`.
    public enum ColorModel: Sendable {
        case rgb
        case gray
        case cmyk

        var components: Int {
            switch self {
            case .rgb: 3
            case .gray: 1
            case .cmyk: 4
            }
        }

        var code: Int32 {
            switch self {
            case .rgb: Int32(BM_COLOR_RGB)
            case .gray: Int32(BM_COLOR_GRAY)
            case .cmyk: Int32(BM_COLOR_CMYK)
            }
        }
    }

    /// Encodes pixels (`color.components` bytes each) as a JPEG, baseline unless `progressive`.
    public static func encode(
        pixels: [UInt8], width: Int, height: Int, color: ColorModel = .rgb, quality: Int,
        progressive: Bool = false
    ) throws(ImageError) -> [UInt8] {
        precondition(pixels.count == width * height * color.components, "pixel buffer size does not match")
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        _ = try withImageMessage { message, size in
            bm_jpeg_encode(
                pixels, pixels.count, Int32(width), Int32(height), color.code, Int32(quality), progressive ? 1 : 0,
                &output, &outputSize, message, size) == imageOK ? () : nil
        }
        return takeImageBuffer(output, outputSize)
    }

    /// Encodes an RGB image.
    static func encode(_ image: RGBImage, quality: Int) throws(ImageError) -> [UInt8] {
        try encode(pixels: image.pixels, width: image.width, height: image.height, quality: quality)
    }
}
