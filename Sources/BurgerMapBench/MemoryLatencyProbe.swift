import ArgumentParser
import BurgerMapCore
import Foundation

/// `memory-latency`: the time of one dependent load in a random walk over a buffer, the speed of
/// the machine's memory as the service meets it at that moment.
///
/// On this benchmark machine (a VM of 2 cores sharing the host's 32 MiB L3 with other tenants) the
/// same walk over 8 MiB took 17–25 ns a load for stretches of seconds and 100–130 ns for others
/// (2026-11-27): the L3 was ours, then a neighbour's. Work that touches more than the 2 MiB L2 (a
/// SQLite page cache, the heap of a request) slows by the same turns, so `scripts/bench-ceiling`
/// runs this probe before each pair of one-connection blocks and prints it beside their latencies.
/// It is written here rather than taken from a package because no Swift package measures this: a
/// pointer chase is a dozen lines.
struct MemoryLatencyProbe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory-latency",
        abstract: "Print the nanoseconds of one dependent load in a random walk over a buffer.")

    @Option(help: "The buffer's size in MiB (above the L2, within the L3: 8).") var megabytes = 8
    @Option(help: "How long to walk, in milliseconds.") var milliseconds = 200

    func validate() throws {
        guard (1...1024).contains(megabytes) else { throw ValidationError("--megabytes: 1...1024") }
        guard (10...10_000).contains(milliseconds) else { throw ValidationError("--milliseconds: 10...10000") }
    }

    func run() throws {
        let count = megabytes << 17  // 8-byte slots
        // One cycle through every slot (Sattolo's shuffle), so the walk never settles in a short
        // loop that the caches would hold.
        var next = [Int](0..<count)
        var generator = SeededGenerator(seed: 7)
        for index in stride(from: count - 1, to: 0, by: -1) {
            next.swapAt(index, Int.random(in: 0..<index, using: &generator))
        }
        let (nanosecondsPerLoad, lastSlot) = next.withUnsafeBufferPointer { slots in
            var position = 0
            var loads = 0
            let start = DispatchTime.now().uptimeNanoseconds
            let end = start + UInt64(milliseconds) * 1_000_000
            var now = start
            while now < end {
                for _ in 0..<10_000 { position = slots[position] }
                loads += 10_000
                now = DispatchTime.now().uptimeNanoseconds
            }
            // `position` is returned and read so that the walk cannot be optimised away.
            return (Double(now - start) / Double(loads), position)
        }
        print(String(format: "%.1f", nanosecondsPerLoad))
        if lastSlot < 0 { print("unreachable") }
    }
}
