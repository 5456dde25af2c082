import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where log lines go: a file descriptor, written in batches.
///
/// One writer at a time: a line that arrives while another is being written waits in memory and
/// goes out with the next `write(2)`, so under load lines share system calls (one per line was
/// 3.4% of a `/health` request's CPU, `perf`) and no line waits longer than the write before it.
/// Lines keep their order and never interleave. The waiting lines are bounded
/// (`pendingLimit`): while the output is blocked (a full pipe), lines beyond it are dropped and a
/// line says how many once it moves again.
public final class LogOutput: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var writing = false
        var dropped = 0
    }

    private let descriptor: Int32
    private let pendingLimit: Int
    private let state = Mutex(State())

    /// The process's standard error.
    public static let standardError = LogOutput(descriptor: 2)

    /// Writes to `descriptor`, which the caller keeps open, with at most `pendingLimit` bytes of
    /// lines waiting (4 MiB by default).
    public init(descriptor: Int32, pendingLimit: Int = 4 << 20) {
        self.descriptor = descriptor
        self.pendingLimit = pendingLimit
    }

    /// Whether a line is being written now (for tests).
    var isWriting: Bool { state.withLock { $0.writing } }

    func write(_ line: [UInt8]) {
        var batch: [UInt8] = state.withLock { state in
            guard !state.writing else {
                if state.pending.count + line.count <= pendingLimit {
                    state.pending.append(contentsOf: line)
                } else {
                    state.dropped += 1
                }
                return []
            }
            state.writing = true
            return line
        }
        while !batch.isEmpty {
            writeAll(batch)
            batch.removeAll(keepingCapacity: true)
            state.withLock { state in
                swap(&batch, &state.pending)
                if state.dropped > 0 {
                    batch.append(contentsOf: "… \(state.dropped) log lines dropped: the output was blocked\n".utf8)
                    state.dropped = 0
                }
                if batch.isEmpty { state.writing = false }
            }
        }
    }

    /// Writes all of `bytes` (retrying short writes and interruptions); what cannot be written is
    /// dropped, as `StreamLogHandler` drops it.
    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#else
    private let systemWrite = Darwin.write
#endif

/// The log lines' timestamps: `2026-11-25T04:01:41+0000` (UTC), formatted once per second.
public final class LogClock: Sendable {
    private let now: @Sendable () -> Int
    private let cache = Mutex<(second: Int, text: [UInt8])>((Int.min, []))

    /// The system's clock.
    public static let system = LogClock { Int(time(nil)) }

    /// A clock that reads the seconds since 1970 from `now` (tests inject theirs).
    public init(now: @escaping @Sendable () -> Int) {
        self.now = now
    }

    func timestamp() -> [UInt8] {
        let second = now()
        return cache.withLock { cache in
            if cache.second != second {
                cache = (second, Self.formatted(second))
            }
            return cache.text
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS+0000` for seconds since 1970, UTC.
    static func formatted(_ second: Int) -> [UInt8] {
        var time = time_t(second)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return Array("<unknown>".utf8) }
        var text: [UInt8] = []
        text.reserveCapacity(24)
        func append(_ value: Int32, digits: Int) {
            var divisor: Int32 = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                text.append(0x30 + UInt8((value / divisor) % 10))
                divisor /= 10
            }
        }
        append(parts.tm_year + 1900, digits: 4)
        text.append(0x2D)
        append(parts.tm_mon + 1, digits: 2)
        text.append(0x2D)
        append(parts.tm_mday, digits: 2)
        text.append(0x54)
        append(parts.tm_hour, digits: 2)
        text.append(0x3A)
        append(parts.tm_min, digits: 2)
        text.append(0x3A)
        append(parts.tm_sec, digits: 2)
        text.append(contentsOf: "+0000".utf8)
        return text
    }
}
