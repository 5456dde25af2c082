import BurgerMapCore

/// Bounds the memory that images being decoded at once may take: a decode waits (without
/// holding a thread) until its pixels fit beside the others'. The worker count alone bounds
/// how many decode at once, not their size: four clients looping a 50-megapixel PNG (150 MB of
/// pixels each) took the server from 408 to 865 MB. One image larger than the whole budget
/// still runs, alone.
final class DecodeMemoryBudget: Sendable {
    let bytes: Int
    private let queue: AdmissionQueue

    init(bytes: Int) {
        self.bytes = max(1, bytes)
        queue = AdmissionQueue(capacity: self.bytes)
    }

    /// How many decodes wait for room now.
    var waitingCount: Int { queue.waiting }

    /// Runs `work` once `need` bytes fit (first come, first served).
    func withReservation<T>(_ need: Int, _ work: () async throws -> T) async throws -> T {
        // No bound on the waiting: uploads are bounded by connections and write limits.
        _ = await queue.enter(need)
        defer { queue.leave(need) }
        return try await work()
    }
}

extension PhotoProcessor {
    /// The bytes of pixels decoding `bytes` takes at most (3 a pixel, at the DCT scale a JPEG is
    /// decoded at), read from the image's header; `nil` when it cannot be read (the decoder
    /// then refuses the image).
    static func decodedBytes(_ bytes: UnsafeRawBufferPointer, fullSide: Int) -> Int? {
        guard let format = ImageFormat.detect(bytes) else { return nil }
        switch format {
        case .jpeg:
            guard let size = declaredJPEGSize(bytes) else { return nil }
            let scale = scaleNumerator(longestSide: max(size.width, size.height), target: fullSide)
            return scaledLongestSide(size.width, scale) * scaledLongestSide(size.height, scale) * 3
        case .png:
            // The IHDR chunk comes first: width and height at bytes 16…23.
            guard bytes.count >= 24 else { return nil }
            func word(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
            return word(16) * word(20) * 4
        }
    }
}
