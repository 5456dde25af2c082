import BurgerMapCore
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The service's log lines on standard error, in swift-log's `StreamLogHandler` layout:
/// `2026-11-25T04:01:41+0000 info burgermap: key=value … [Source] message`, metadata sorted by
/// key; times in UTC.
///
/// Written here rather than using `StreamLogHandler` itself because the access log writes a line
/// per request, and `StreamLogHandler` formats its timestamp with `localtime` (which glibc makes
/// re-check `/etc/localtime`, a system call, every time), builds the line by string interpolation
/// and writes it through `FILE` locking and `fflush`: 4.4% of a nearby request's CPU in a `perf`
/// profile (`scripts/bench-ceiling`, docs/performance.md "The HTTP path against a bare route"). This handler
/// formats the timestamp once per second and builds each line as bytes (`LogOutput` writes
/// them).
public struct ServiceLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    public var metadata: Logger.Metadata = [:] {
        // Sorted here, rendered with each line: Hummingbird sets `hb.request.id` on every
        // request's logger, and a request logs one line (rendering here too was 0.9% of a
        // `/health` request's CPU, `perf`).
        didSet { sortedMetadata = metadata.sorted { $0.key < $1.key } }
    }
    /// `metadata` sorted by key.
    private var sortedMetadata: [(key: String, value: Logger.Metadata.Value)] = []
    private let label: String
    private let output: LogOutput
    private let clock: LogClock

    public init(
        label: String, output: LogOutput = .standardError, clock: LogClock = .system,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) {
        self.label = label
        self.output = output
        self.clock = clock
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let provided = metadataProvider?.get() ?? [:]
        guard !provided.isEmpty || !(event.metadata?.isEmpty ?? true) || event.error != nil else {
            write(level: event.level, event.message.description, source: event.source, sortedPairs: [])
            return
        }
        // The line's own pairs, merged with the provider's (the line's win).
        var own = event.metadata ?? [:]
        if !provided.isEmpty { own.merge(provided) { explicit, _ in explicit } }
        if let error = event.error {
            own["error.message"] = "\(error)"
            own["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        write(
            level: event.level, event.message.description, source: event.source,
            sortedPairs: own.sorted { $0.key < $1.key })
    }

    /// Writes a line whose own pairs come already sorted by key, each key once: the line
    /// `log(event:)` writes for the same pairs as metadata, without a dictionary made and sorted
    /// for it. The access log writes one for every request, at `info` (through swift-log, making and
    /// sorting the dictionary and the provider's check were about 2% of a nearby request's CPU
    /// in a `perf` profile, 2026-11-27). Nothing is written below the handler's level.
    public func log(
        level: Logger.Level, _ message: String, sortedPairs: [(key: String, value: Logger.Metadata.Value)],
        source: String
    ) {
        guard level >= logLevel else { return }
        assert(zip(sortedPairs, sortedPairs.dropFirst()).allSatisfy { $0.key < $1.key }, "pairs sorted, keys once")
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            var own = provided
            for pair in sortedPairs { own[pair.key] = pair.value }
            write(level: level, message, source: source, sortedPairs: own.sorted { $0.key < $1.key })
        } else {
            write(level: level, message, source: source, sortedPairs: sortedPairs)
        }
    }

    /// The line: the logger's sorted metadata merged with `sortedPairs` (theirs win on a key).
    private func write(
        level: Logger.Level, _ message: String, source: String,
        sortedPairs: [(key: String, value: Logger.Metadata.Value)]
    ) {
        var line: [UInt8] = []
        line.reserveCapacity(320)
        line.append(contentsOf: clock.timestamp())
        line.append(0x20)
        line.append(contentsOf: level.rawValue.utf8)
        if !label.isEmpty {
            line.append(0x20)
            line.append(contentsOf: label.utf8)
        }
        line.append(0x3A)
        var next = sortedMetadata.startIndex
        for pair in sortedPairs {
            while next < sortedMetadata.endIndex, sortedMetadata[next].key <= pair.key {
                if sortedMetadata[next].key != pair.key {
                    Self.render(CollectionOfOne(sortedMetadata[next]), into: &line)
                }
                next += 1
            }
            Self.render(CollectionOfOne(pair), into: &line)
        }
        Self.render(sortedMetadata[next...], into: &line)
        line.append(contentsOf: " [".utf8)
        line.append(contentsOf: source.utf8)
        line.append(contentsOf: "] ".utf8)
        line.append(contentsOf: message.utf8)
        line.append(0x0A)
        output.write(line)
    }

    /// ` key=value` for each pair (sorted by key), each after a space.
    static func render(
        _ pairs: some Collection<(key: String, value: Logger.Metadata.Value)>, into line: inout [UInt8]
    ) {
        for (key, value) in pairs {
            line.append(0x20)
            line.append(contentsOf: key.utf8)
            line.append(0x3D)
            if case .string(let text) = value {
                line.append(contentsOf: text.utf8)
            } else {
                line.append(contentsOf: value.description.utf8)
            }
        }
    }
}

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
