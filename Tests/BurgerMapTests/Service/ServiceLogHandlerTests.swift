import Foundation
import Logging
import Synchronization
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// The service's log lines: swift-log's stream layout, written to a real file.
@Suite("Log lines")
struct ServiceLogHandlerTests {
    /// A log file in a temporary folder, and a logger that writes to it at `second`.
    final class LogFile: @unchecked Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("burgermap-log-\(UUID().uuidString)")
        let handle: FileHandle
        let second = Mutex(1_795_000_000)

        init() throws {
            FileManager.default.createFile(atPath: url.path, contents: nil)
            handle = try FileHandle(forWritingTo: url)
        }

        deinit {
            try? handle.close()
            try? FileManager.default.removeItem(at: url)
        }

        func logger(label: String = "burgermap", provider: Logger.MetadataProvider? = nil) -> Logger {
            let output = LogOutput(descriptor: handle.fileDescriptor)
            let clock = LogClock { [self] in self.second.withLock { $0 } }
            return Logger(label: label) {
                ServiceLogHandler(label: $0, output: output, clock: clock, metadataProvider: provider)
            }
        }

        var lines: [String] {
            (try? String(contentsOf: url, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        }
    }

    struct Refused: Error {}

    @Test("a line: UTC time, level, label, metadata sorted by key with the logger's own, source, message")
    func layout() throws {
        let file = try LogFile()
        var logger = file.logger()
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.info("request", metadata: ["status": .stringConvertible(200), "method": "GET", "route": "/health"])
        logger.debug("not written at info")
        file.second.withLock { $0 += 61 }
        logger.warning("plain")
        logger.error("failed", error: Refused())
        #expect(
            file.lines == [
                "2026-11-18T11:06:40+0000 info burgermap: hb.request.id=abc123 method=GET route=/health status=200 [BurgerMapTests] request",
                "2026-11-18T11:07:41+0000 warning burgermap: hb.request.id=abc123 [BurgerMapTests] plain",
                "2026-11-18T11:07:41+0000 error burgermap: error.message=Refused() "
                    + "error.type=BurgerMapTests.ServiceLogHandlerTests.Refused hb.request.id=abc123 [BurgerMapTests] failed",
            ])
    }

    @Test("a line's own metadata wins over the logger's; lists and nested values as swift-log prints them")
    func mergedMetadata() throws {
        let file = try LogFile()
        var logger = file.logger(label: "")
        logger[metadataKey: "place"] = "1"
        logger.notice("moved", metadata: ["place": "2", "tags": ["a", "b"]])
        logger.notice("kept")
        #expect(
            file.lines == [
                "2026-11-18T11:06:40+0000 notice: place=2 tags=[\"a\", \"b\"] [BurgerMapTests] moved",
                "2026-11-18T11:06:40+0000 notice: place=1 [BurgerMapTests] kept",
            ])
    }

    @Test("fields given in key order make the line swift-log's metadata makes, merged with the logger's, at its level")
    func fieldsInKeyOrder() throws {
        let file = try LogFile()
        var logger = file.logger()
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger[metadataKey: "route"] = "/kept/by/the/line"
        logger[metadataKey: "zone"] = "last"
        let pairs: [(key: String, value: Logger.Metadata.Value)] = [
            ("bytes", "12"), ("client", "127.0.0.1"), ("method", "GET"), ("route", "/health"), ("status", "200"),
        ]
        let handler = try #require(logger.handler as? ServiceLogHandler)
        handler.log(level: .info, "request", source: "BurgerMap") { line in
            line.add("bytes", number: 12)
            line.add("client", text: "127.0.0.1")
            line.add("method") { $0.append(contentsOf: "GET".utf8) }
            line.add("route", text: "/health")
            line.add("status", number: 200)
        }
        var called = false
        handler.log(level: .debug, "below the level", source: "BurgerMap") { _ in called = true }
        #expect(!called)
        logger.info("request", metadata: Logger.Metadata(uniqueKeysWithValues: pairs), source: "BurgerMap")
        let line =
            "2026-11-18T11:06:40+0000 info burgermap: bytes=12 client=127.0.0.1 hb.request.id=abc123 method=GET "
            + "route=/health status=200 zone=last [BurgerMap] request"
        #expect(file.lines == [line, line])
    }

    @Test("metadata set, replaced and removed by key, or set whole, renders sorted")
    func metadataByKey() throws {
        let file = try LogFile()
        var logger = file.logger(label: "")
        logger[metadataKey: "m"] = "1"
        logger[metadataKey: "a"] = "2"
        logger[metadataKey: "z"] = "3"
        logger[metadataKey: "m"] = "4"
        logger[metadataKey: "a"] = nil
        logger[metadataKey: "absent"] = nil
        #expect(logger[metadataKey: "m"] == "4")
        #expect(logger[metadataKey: "a"] == nil)
        logger.notice("by key")
        logger.handler.metadata = ["b": "5", "a": "6"]
        #expect(logger.handler.metadata == ["a": "6", "b": "5"])
        logger.notice("whole")
        #expect(
            file.lines == [
                "2026-11-18T11:06:40+0000 notice: m=4 z=3 [BurgerMapTests] by key",
                "2026-11-18T11:06:40+0000 notice: a=6 b=5 [BurgerMapTests] whole",
            ])
    }

    @Test("a metadata provider's values stand between the logger's and the line's own fields")
    func providedMetadata() throws {
        let file = try LogFile()
        var logger = file.logger(provider: Logger.MetadataProvider { ["trace": "t1", "status": "provided"] })
        logger[metadataKey: "trace"] = "logger's"
        let handler = try #require(logger.handler as? ServiceLogHandler)
        handler.log(level: .info, "request", source: "BurgerMap") { line in
            line.add("bytes", number: 3)
            line.add("status", number: 200)
        }
        #expect(
            file.lines == ["2026-11-18T11:06:40+0000 info burgermap: bytes=3 status=200 trace=t1 [BurgerMap] request"])
    }

    @Test("lines from many tasks at once arrive whole, one per line")
    func concurrentLines() async throws {
        let file = try LogFile()
        let logger = file.logger()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for line in 0..<200 {
                        logger.info(
                            "line",
                            metadata: [
                                "task": "\(task)", "n": "\(line)", "pad": "\(String(repeating: "x", count: 300))",
                            ])
                    }
                }
            }
        }
        let lines = file.lines
        #expect(lines.count == 1_600)
        #expect(
            lines.allSatisfy { $0.hasPrefix("2026-11-18T11:06:40+0000 info burgermap: n=") && $0.hasSuffix("] line") })
        #expect(Set(lines).count == 1_600)
    }
    @Test("while the output is blocked, waiting lines are bounded and the dropped ones counted in a line")
    func blockedOutput() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let output = LogOutput(descriptor: ends[1], pendingLimit: 1_000)
        // More than a pipe holds: its write blocks until the test reads.
        let long = [UInt8](repeating: 0x78, count: 200_000) + [0x0A]
        let writer = Thread { output.write(long) }
        writer.start()
        while !output.isWriting { sched_yield() }
        let lines = (0..<50).map { number in
            let text = "line \(number) "
            return Array((text + String(repeating: ".", count: 99 - text.utf8.count) + "\n").utf8)
        }
        for line in lines { output.write(line) }

        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let note = Array("… 40 log lines dropped: the output was blocked\n".utf8)
        while !received.ends(with: note) {
            let count = read(ends[0], &buffer, buffer.count)
            try #require(count > 0)
            received.append(contentsOf: buffer[..<count])
        }
        #expect(received == long + lines.prefix(10).joined() + note)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
