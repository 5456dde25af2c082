import Synchronization
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("Image decodes share a budget of decoded bytes")
struct DecodeMemoryBudgetTests {
    /// The order in which decodes started.
    final class Order: Sendable {
        private let names = Mutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test("a decode waits until its pixels fit beside the others', first come first served")
    func waitsForRoom() async throws {
        let budget = DecodeMemoryBudget(bytes: 100)
        let order = Order()
        let (holdA, releaseA) = AsyncStream.makeStream(of: Void.self)
        let (started, startedSignal) = AsyncStream.makeStream(of: String.self)
        var startedEvents = started.makeAsyncIterator()
        let a = Task {
            try await budget.withReservation(60) {
                order.append("A")
                startedSignal.yield("A")
                for await _ in holdA { break }
            }
        }
        #expect(await startedEvents.next() == "A")
        let b = Task {
            try await budget.withReservation(60) {
                order.append("B")
                startedSignal.yield("B")
            }
        }
        while budget.waitingCount < 1 { await Task.yield() }
        // 30 bytes would fit beside A, but B came first: C waits behind it.
        let c = Task {
            try await budget.withReservation(30) {
                order.append("C")
                startedSignal.yield("C")
            }
        }
        while budget.waitingCount < 2 { await Task.yield() }
        #expect(order.all == ["A"])
        releaseA.yield()
        try await a.value
        try await b.value
        try await c.value
        #expect(order.all == ["A", "B", "C"])
        // An image larger than the whole budget still runs, alone.
        let alone = try await budget.withReservation(500) { "decoded" }
        #expect(alone == "decoded")
    }

    @Test("the bytes a decode takes are read from the image's header")
    func decodedBytesFromHeader() {
        // A PNG's signature and IHDR chunk (all the estimate reads): 300 × 200.
        let png: [UInt8] =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            + [0, 0, 0x01, 0x2C, 0, 0, 0, 0xC8, 8, 2, 0, 0, 0]
        let jpeg = TestImages.jpeg(width: 4000, height: 3000)
        png.withUnsafeBytes { #expect(PhotoProcessor.decodedBytes($0, fullSide: 2048) == 300 * 200 * 4) }
        // Decoded at half size (DCT scaling): 2000 × 1500 × 3.
        jpeg.withUnsafeBytes { #expect(PhotoProcessor.decodedBytes($0, fullSide: 2048) == 2000 * 1500 * 3) }
    }
}
