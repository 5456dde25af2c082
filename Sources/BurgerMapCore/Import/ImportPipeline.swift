import Foundation

/// A bounded hand-over between the thread that reads and validates a dataset and the database
/// writer, so that parsing (a third of an import's work) runs on the second core instead of
/// before each insert. The reading side is a plain thread; the writing side either blocks
/// (`take()`, on a database writer's thread) or waits as a task (`next()`, for engines whose
/// writes are asynchronous), never holding a thread of the concurrency pool.
package final class ImportPipeline: @unchecked Sendable {
    /// What the reading thread hands over.
    package enum Message {
        /// Validated rows or skips with their positions, and how far the file has been read.
        case batch([(position: Int, item: ImportItem)], bytesRead: Int64)
        case end
        case failure(any Error)
    }

    private let condition = NSCondition()
    private var queue: [Message] = []
    private var closed = false
    private let capacity: Int
    /// A task waiting in `next()` for the queue to fill.
    private var waiter: CheckedContinuation<Message, Never>?

    package init(capacity: Int = 8) {
        self.capacity = capacity
    }

    /// Waits for room and hands a message over; returns `false` once the consumer has stopped.
    @discardableResult
    package func put(_ message: Message) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity, !closed { condition.wait() }
        guard !closed else { return false }
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: message)
            return true
        }
        queue.append(message)
        condition.broadcast()
        return true
    }

    /// Waits for the next message.
    package func take() -> Message {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty { condition.wait() }
        let message = queue.removeFirst()
        condition.broadcast()
        return message
    }

    /// Waits for the next message as a task, without blocking a thread.
    package func next() async -> Message {
        await withCheckedContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            if queue.isEmpty {
                waiter = continuation
            } else {
                continuation.resume(returning: queue.removeFirst())
                condition.broadcast()
            }
        }
    }

    /// Stops the producer (after the consumer failed or finished).
    package func close() {
        condition.lock()
        closed = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// Starts a thread that reads `reader` to the end, validating each row for `source` (with
    /// `category` for rows that name none).
    package static func start(
        reading reader: consuming any PlaceRowReader, source: String, category: String? = nil, timeZone: String? = nil,
        batchSize: Int = 2048
    ) -> ImportPipeline {
        let pipeline = ImportPipeline()
        nonisolated(unsafe) var reader = reader
        let thread = Thread {
            do {
                var batch: [(position: Int, item: ImportItem)] = []
                batch.reserveCapacity(batchSize)
                while let (position, row) = try reader.next() {
                    batch.append((position, row.validated(source: source, category: category, timeZone: timeZone)))
                    if batch.count == batchSize {
                        guard pipeline.put(.batch(batch, bytesRead: reader.bytesRead)) else { return }
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                pipeline.put(.batch(batch, bytesRead: reader.bytesRead))
                pipeline.put(.end)
            } catch {
                pipeline.put(.failure(error))
            }
        }
        thread.start()
        return pipeline
    }
}
