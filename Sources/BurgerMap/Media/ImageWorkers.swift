import BurgerMapCore
import Foundation
import Metrics
import NIOPosix

/// Runs photo processing on its own threads, one per core, so that at most that many images are
/// worked on at once and the event loops and the cooperative pool stay free for reads.
public final class ImageWorkers: Sendable {
    private let pool: NIOThreadPool
    private let processor: PhotoProcessor
    private let cores: CoreBudget
    private let duration = Metrics.Timer(label: "burgermap_image_processing_seconds")
    private let failures = Counter(label: "burgermap_image_rejected_total")
    private let inputBytes = Recorder(label: "burgermap_image_input_bytes")
    /// The pixels of the images being decoded at once.
    private let memory: DecodeMemoryBudget

    /// The default bound on the pixels decoded at once: one 50-megapixel PNG (200 MB as RGBA),
    /// or several phone photos (a 12-megapixel JPEG is decoded at half its size, 9 MB).
    public static let defaultDecodeMemory = 200 << 20

    /// Starts `threads` worker threads (one per core by default).
    public init(
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, processor: PhotoProcessor = PhotoProcessor(),
        decodeMemory: Int = ImageWorkers.defaultDecodeMemory
    ) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        cores = CoreBudget(cores: threads)
        memory = DecodeMemoryBudget(bytes: decodeMemory)
        self.processor = processor
    }

    deinit {
        pool.shutdownGracefully { _ in }
    }

    /// Processes one uploaded image on a worker thread.
    public func process(_ bytes: [UInt8]) async throws -> ProcessedPhoto {
        inputBytes.record(bytes.count)
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let need =
                bytes.withUnsafeBytes { PhotoProcessor.decodedBytes($0, fullSide: processor.fullSide) } ?? 0
            let processed = try await memory.withReservation(need) {
                try await pool.runIfActive { [processor, cores] in
                    cores.occupy()
                    defer { cores.giveBack() }
                    return try bytes.withUnsafeBytes { buffer throws(ImageError) in
                        try processor.process(buffer, cores: cores)
                    }
                }
            }
            duration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
            return processed
        } catch {
            failures.increment()
            throw error
        }
    }
}
