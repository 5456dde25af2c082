import Foundation
import Metrics
import NIOPosix
import Synchronization

/// The cores one kind of work may occupy: image work (each job holds one while it runs; a job
/// may borrow a second one for a helper thread only when one is idle, so threads busy with
/// images never outnumber the cores), and searches that scan every place's name
/// (`ServiceDependencies.searchScans`).
public final class CoreBudget: Sendable {
    private let busy = Atomic<Int>(0)
    public let cores: Int

    public init(cores: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.cores = max(1, cores)
    }

    /// Takes an idle core if there is one.
    public func borrow() -> Bool {
        var current = busy.load(ordering: .relaxed)
        while current < cores {
            let (exchanged, original) = busy.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Returns a core taken with `borrow` or `occupy`.
    public func giveBack() {
        busy.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// Takes a core for a job (the worker pool never runs more jobs than cores).
    public func occupy() {
        busy.add(1, ordering: .acquiringAndReleasing)
    }
}

/// Runs photo processing on its own threads, one per core, so that at most that many images are
/// worked on at once and the event loops and the cooperative pool stay free for reads.
public final class ImageWorkers: Sendable {
    private let pool: NIOThreadPool
    private let processor: PhotoProcessor
    private let cores: CoreBudget
    private let duration = Metrics.Timer(label: "burgermap_image_processing_seconds")
    private let failures = Counter(label: "burgermap_image_rejected_total")
    private let inputBytes = Recorder(label: "burgermap_image_input_bytes")

    /// Starts `threads` worker threads (one per core by default).
    public init(
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, processor: PhotoProcessor = PhotoProcessor()
    ) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        cores = CoreBudget(cores: threads)
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
            let processed = try await pool.runIfActive { [processor, cores] in
                cores.occupy()
                defer { cores.giveBack() }
                return try bytes.withUnsafeBytes { buffer throws(ImageError) in
                    try processor.process(buffer, cores: cores)
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
