import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain blocking TCP client on the loopback address, for clients no HTTP library imitates:
/// one that writes its whole body before reading a byte, or one that sends broken framing.
final class RawSocket: @unchecked Sendable {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(descriptor) }

    /// Writes every byte (blocking); `false` when the server closed before taking them all.
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads until the server closes the connection (`closed`), an error, or the read timeout.
    func readToEnd(limit: Int = 1 << 20) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while received.count < limit {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
            if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: received, as: UTF8.self), errno == ECONNRESET) }
            received += buffer[0..<count]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// Reads until `marker` has arrived (the text up to and including it), the server closes,
    /// or the read timeout.
    func read(until marker: String, limit: Int = 1 << 20) -> String {
        var received: [UInt8] = []
        var byte: UInt8 = 0
        let target = Array(marker.utf8)
        while received.count < limit {
            guard recv(descriptor, &byte, 1, 0) == 1 else { break }
            received.append(byte)
            if received.count >= target.count, Array(received.suffix(target.count)) == target { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Runs blocking socket work on a thread of its own, off the cooperative pool the server uses.
    static func onThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
