import ArgumentParser
import BurgerMap
import BurgerMapCore
import Foundation

/// `photo`: re-encoding a large JPEG into the stored pair (2048 px + 400 px thumbnail) against
/// libjpeg-turbo's own `djpeg -scale 1/2 | cjpeg` pipeline on the same file, interleaved.
struct PhotoBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo",
        abstract: "Median time to re-encode a 12-megapixel JPEG: PhotoProcessor vs djpeg -scale 1/2 | cjpeg.")

    @Option(help: "A JPEG to use; without it a 4000 x 3000 photo-like JPEG is generated.") var file: String?
    @Option(help: "Rounds; each times both methods once.") var rounds = 15
    @Option(help: "Where the generated JPEG goes.") var output = "bench-data/photo-12mp.jpg"

    func run() async throws {
        let path = try file ?? Self.generatedPhoto(at: output)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let processor = PhotoProcessor()
        // As in the service with no other upload running: this job holds one core of two and may
        // borrow the other.
        let cores = CoreBudget(cores: 2)
        cores.occupy()
        let first = try bytes.withUnsafeBytes { try processor.process($0, cores: cores) }
        print(
            "input: \(path), \(bytes.count) bytes; output \(first.width)x\(first.height) (\(first.full.count) bytes) "
                + "+ \(first.thumbnailWidth)x\(first.thumbnailHeight) (\(first.thumbnail.count) bytes)")
        var ours: [Double] = []
        var tools: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try bytes.withUnsafeBytes { try processor.process($0, cores: cores) }
            ours.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            tools.append(try Self.timeTools(path))
        }
        let oursMedian = median(ours)
        let toolsMedian = median(tools)
        print(String(format: "PhotoProcessor (2048 + thumbnail): median %.1f ms", oursMedian))
        print(String(format: "djpeg -scale 1/2 | cjpeg -optimize:  median %.1f ms", toolsMedian))
        print(String(format: "ratio: %.2f (goal <= 1.00)", oursMedian / toolsMedian))
    }

    /// Milliseconds for the shell pipeline, output discarded.
    static func timeTools(_ path: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "djpeg -scale 1/2 \"$0\" | cjpeg -quality 85 -optimize > /dev/null", path]
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError("djpeg | cjpeg failed (libjpeg-turbo-progs?)")
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }

    /// Writes a 4000 x 3000 JPEG (quality 92) with gradients, edges and sensor-like noise, so that
    /// its entropy-coded size (several MB) is like a phone photo's.
    static func generatedPhoto(at path: String) throws -> String {
        if FileManager.default.fileExists(atPath: path) { return path }
        let width = 4000
        let height = 3000
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Double(Int(state >> 59)) - 16
                let base = (x / 250 + y / 250) % 2 == 0 ? 40.0 : 0.0
                let index = (y * width + x) * 3
                let r = 128 + 90 * sin(Double(x) / 97 + Double(y) / 151) + base + noise
                let g = 120 + 80 * sin(Double(y) / 83) + noise
                let b = 110 + 70 * cos(Double(x + y) / 131) - base + noise
                pixels[index] = UInt8(max(0, min(255, r)))
                pixels[index + 1] = UInt8(max(0, min(255, g)))
                pixels[index + 2] = UInt8(max(0, min(255, b)))
            }
        }
        let jpeg = try JPEGWriter.encode(pixels: pixels, width: width, height: height, quality: 92)
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// `sample-photo`: a 4000 x 3000 photo-like JPEG as large as possible under a byte limit (for the
/// upload memory benchmark: phones send photos of up to 10 MiB).
struct SamplePhoto: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample-photo", abstract: "Write a noisy 12-megapixel JPEG just under a size limit.")

    @Option(help: "Largest size in bytes.") var maxBytes = 10 << 20
    @Option(help: "Width in pixels.") var width = 4000
    @Option(help: "Height in pixels.") var height = 3000
    @Option(help: "Output file.") var output: String

    func run() throws {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for index in pixels.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[index] = UInt8(truncatingIfNeeded: (index / 3 % width) / 16 &+ Int(state >> 57))
        }
        var best: [UInt8] = []
        var (low, high) = (30, 100)
        while low <= high {
            let quality = (low + high) / 2
            let jpeg = try JPEGWriter.encode(pixels: pixels, width: width, height: height, quality: quality)
            if jpeg.count <= maxBytes {
                best = jpeg
                low = quality + 1
            } else {
                high = quality - 1
            }
        }
        guard !best.isEmpty else { throw ValidationError("no quality fits \(maxBytes) bytes") }
        try Data(best).write(to: URL(fileURLWithPath: output))
        print("\(output): \(best.count) bytes")
    }
}
