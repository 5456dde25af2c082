import BurgerMapCore
import Logging

/// The service's log lines on standard error, in swift-log's `StreamLogHandler` layout:
/// `2026-11-25T04:01:41+0000 info burgermap: key=value … [Source] message`, metadata sorted by
/// key; times in UTC.
///
/// Written here rather than using `StreamLogHandler` itself because the access log writes a line
/// per request, and `StreamLogHandler` formats its timestamp with `localtime` (which glibc makes
/// re-check `/etc/localtime`, a system call, every time), builds the line by string interpolation
/// and writes it through `FILE` locking and `fflush`: 4.4% of a nearby request's CPU in a `perf`
/// profile (`scripts/bench-ceiling`, docs/performance/http-path.md "The HTTP path against a bare route"). This handler
/// formats the timestamp once per second and builds each line as bytes (`LogOutput` writes
/// them).
public struct ServiceLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    /// The logger's metadata, kept only as `sortedMetadata`.
    public var metadata: Logger.Metadata {
        get { Logger.Metadata(uniqueKeysWithValues: sortedMetadata) }
        set { sortedMetadata = newValue.sorted { $0.key < $1.key } }
    }
    /// The logger's metadata sorted by key, as each line renders it. Hummingbird sets
    /// `hb.request.id` on every request's logger and the access log sets it again, so a key is
    /// set in place here: through a dictionary, each set copied the parent logger's dictionary,
    /// hashed the key and sorted the pairs again, 1.2 µs of every request (`perf`, 2026-11-28);
    /// rendering the dictionary with each line instead was 0.9% of a `/health` request's CPU.
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
        get { sortedMetadata.first { $0.key == key }?.value }
        set {
            let index = sortedMetadata.firstIndex { $0.key >= key } ?? sortedMetadata.endIndex
            let present = index < sortedMetadata.endIndex && sortedMetadata[index].key == key
            switch (newValue, present) {
            case (let value?, true): sortedMetadata[index].value = value
            case (let value?, false): sortedMetadata.insert((key, value), at: index)
            case (nil, true): sortedMetadata.remove(at: index)
            case (nil, false): break
            }
        }
    }

    public func log(event: LogEvent) {
        let provided = metadataProvider?.get() ?? [:]
        guard !provided.isEmpty || !(event.metadata?.isEmpty ?? true) || event.error != nil else {
            write(level: event.level, event.message.description, source: event.source, base: sortedMetadata) { _ in }
            return
        }
        // The line's own pairs, merged with the provider's (the line's win).
        var own = event.metadata ?? [:]
        if !provided.isEmpty { own.merge(provided) { explicit, _ in explicit } }
        if let error = event.error {
            own["error.message"] = "\(error)"
            own["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        let pairs = own.sorted { $0.key < $1.key }
        write(level: event.level, event.message.description, source: event.source, base: sortedMetadata) { line in
            for index in pairs.indices {
                line.add(pairs[index].key) { Self.append(pairs[index].value, to: &$0) }
            }
        }
    }

    /// Writes a line whose own fields `fields` adds in key order, each key once, straight into
    /// the line's bytes: the line `log(event:)` writes for the same pairs as metadata, without a
    /// dictionary, its sorting or a `String` for each value. The access log writes one for every
    /// request, at `info` (through swift-log, the dictionary and the provider's check were about
    /// 2% of a nearby request's CPU in a `perf` profile, 2026-11-27; a sorted array of pairs, each
    /// value a `String`, still 3.6 µs of the line's 6.3, 2026-11-28). Nothing is written below the
    /// handler's level, and `fields` is not called.
    public func log(
        level: Logger.Level, _ message: String, source: String, fields: (inout LineWriter) -> Void
    ) {
        guard level >= logLevel else { return }
        guard let provided = metadataProvider?.get(), !provided.isEmpty else {
            return write(level: level, message, source: source, base: sortedMetadata, fields: fields)
        }
        // The provider's metadata over the logger's; the line's own fields over both.
        let base = metadata.merging(provided) { _, provided in provided }.sorted { $0.key < $1.key }
        write(level: level, message, source: source, base: base, fields: fields)
    }

    /// The line: `base` (metadata sorted by key) merged with the fields `fields` adds (theirs win
    /// on a key).
    private func write(
        level: Logger.Level, _ message: String, source: String,
        base: [(key: String, value: Logger.Metadata.Value)], fields: (inout LineWriter) -> Void
    ) {
        var writer = LineWriter(metadata: base)
        writer.line.reserveCapacity(320)
        writer.line.append(contentsOf: clock.timestamp())
        writer.line.append(0x20)
        writer.line.append(contentsOf: level.rawValue.utf8)
        if !label.isEmpty {
            writer.line.append(0x20)
            writer.line.append(contentsOf: label.utf8)
        }
        writer.line.append(0x3A)
        fields(&writer)
        writer.addRemainingMetadata()
        writer.line.append(contentsOf: " [".utf8)
        writer.line.append(contentsOf: source.utf8)
        writer.line.append(contentsOf: "] ".utf8)
        writer.line.append(contentsOf: message.utf8)
        writer.line.append(0x0A)
        output.write(writer.line)
    }

    /// A metadata value as swift-log prints it.
    static func append(_ value: Logger.Metadata.Value, to line: inout [UInt8]) {
        if case .string(let text) = value {
            line.append(contentsOf: text.utf8)
        } else {
            line.append(contentsOf: value.description.utf8)
        }
    }

    /// The fields of a line being written, each ` key=value` after a space, merged by key with
    /// the logger's metadata: before each field, the metadata whose keys sort before it.
    public struct LineWriter: LogLineFields {
        fileprivate var line: [UInt8] = []
        private let metadata: [(key: String, value: Logger.Metadata.Value)]
        private var next = 0

        fileprivate init(metadata: [(key: String, value: Logger.Metadata.Value)]) {
            self.metadata = metadata
        }

        /// Adds ` key=` and what `value` appends; `key` sorts after every key added before it.
        public mutating func add(_ key: String, _ value: (inout [UInt8]) -> Void) {
            while next < metadata.endIndex, metadata[next].key <= key {
                if metadata[next].key != key { addMetadata(next) }
                next += 1
            }
            Self.appendKey(key, to: &line)
            value(&line)
        }

        fileprivate mutating func addRemainingMetadata() {
            while next < metadata.endIndex {
                addMetadata(next)
                next += 1
            }
        }

        private mutating func addMetadata(_ index: Int) {
            Self.appendKey(metadata[index].key, to: &line)
            ServiceLogHandler.append(metadata[index].value, to: &line)
        }

        private static func appendKey(_ key: String, to line: inout [UInt8]) {
            line.append(0x20)
            line.append(contentsOf: key.utf8)
            line.append(0x3D)
        }
    }
}

/// Where a log line's own fields go, added in key order, each key once: straight into the line's
/// bytes (`ServiceLogHandler.LineWriter`), or into swift-log metadata for any other handler
/// (`MetadataFields`). One function of a line's fields serves both.
public protocol LogLineFields {
    /// Adds the field `key`, its value what `value` appends (UTF-8).
    mutating func add(_ key: String, _ value: (inout [UInt8]) -> Void)
}

extension LogLineFields {
    /// Adds the field `key` with the value `text`.
    mutating func add(_ key: String, text: String) { add(key) { $0.append(contentsOf: text.utf8) } }

    /// Adds the field `key` with the decimal value `number`.
    mutating func add(_ key: String, number: Int) {
        add(key) { number < 0 ? $0.append(contentsOf: String(number).utf8) : $0.appendDecimal(UInt64(number)) }
    }
}

/// A line's fields as swift-log metadata, for a handler other than `ServiceLogHandler`.
struct MetadataFields: LogLineFields {
    var metadata: Logger.Metadata = [:]

    mutating func add(_ key: String, _ value: (inout [UInt8]) -> Void) {
        var bytes: [UInt8] = []
        value(&bytes)
        metadata[key] = .string(String(decoding: bytes, as: UTF8.self))
    }
}
