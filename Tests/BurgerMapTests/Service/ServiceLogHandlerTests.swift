import Foundation
import Logging
import Synchronization
import Testing

@testable import BurgerMap

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

        func logger(label: String = "burgermap") -> Logger {
            let output = LogOutput(descriptor: handle.fileDescriptor)
            let clock = LogClock { [self] in self.second.withLock { $0 } }
            return Logger(label: label) {
                ServiceLogHandler(label: $0, output: output, clock: clock, metadataProvider: nil)
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
}
