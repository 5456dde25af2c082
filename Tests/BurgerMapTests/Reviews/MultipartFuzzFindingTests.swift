import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

/// Inputs the multipart fuzz target found, sent through the real router.
@Suite("multipart fuzz findings")
struct MultipartFuzzFindingTests {
    /// A byte of 0x80 or more where MultipartKit reads a part's header name trapped inside its
    /// parser and stopped the server (the fuzzer's minimal input: ten bytes of body).
    @Test(
        arguments: StoreEngine.available,
        [
            Array("--xYz\r\n".utf8) + [0xE0],
            Array("--xYz\r\nContent-Disposition: form-data; name=\"rating\"\r\n\r\n5\r\n--xYz\r\nX".utf8) + [
                0xC3, 0xA9,
            ]
                + Array(": 1\r\n\r\n".utf8),
        ])
    func aNonASCIIHeaderNameIsMalformedNotACrash(engine: StoreEngine, body: [UInt8]) async throws {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            var form = MultipartBody(boundary: "xYz")
            form.raw(bytes: body)
            let response = try await client.upload(.post, "/v1/places/\(place)/reviews", form, token: alice.token)
            #expect(response.status == .badRequest)
            #expect(try problemCode(response) == "validation_failed")
            #expect(try await environment.reviewRowCounts() == (0, 0))
        }
    }

    /// Header values (a UTF-8 filename) and bodies may hold any byte: only names are refused.
    @Test(arguments: StoreEngine.available) func nonASCIIHeaderValuesAndBodiesStillUpload(engine: StoreEngine)
        async throws
    {
        let environment = try await TestEnvironment(engine)
        try await environment.withClient { client in
            let alice = try await client.member("alice")
            let place = try await client.addPlace("Patty Lab", token: alice.token)
            var form = MultipartBody(boundary: "xYz")
            form.field("rating", "5")
            form.field("text", "패티가 두껍다\r\nLF\n\u{E0}")
            form.file("photo", TestImages.jpeg(), filename: "café 버거.jpg")
            let response = try await client.upload(.post, "/v1/places/\(place)/reviews", form, token: alice.token)
            #expect(response.status == .created)
            #expect(try await environment.reviewRowCounts() == (1, 1))
        }
    }

    /// Byte by byte, the guard follows the parser: a body byte of 0xE0 passes, a header-name
    /// byte of 0xE0 in the next part is refused.
    @Test func theGuardFollowsTheParserAcrossBuffers() async throws {
        let body =
            Array("--xYz\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\n".utf8) + [0xE0]
            + Array("\r\n--xYz\r\n".utf8) + [0xE0] + Array(": x\r\n\r\n".utf8)
        let stream = AsyncStream<ByteBuffer> { continuation in
            for byte in body { continuation.yield(ByteBuffer(bytes: [byte])) }
            continuation.finish()
        }
        var head = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/")
        head.headerFields[.contentType] = "multipart/form-data; boundary=xYz"
        let request = Request(head: head, body: RequestBody(asyncSequence: stream))
        var parts: [FormPart] = []
        await #expect {
            try await MultipartFormReader(limits: UploadLimits(), fileFields: []).read(request) { parts.append($0) }
        } throws: { error in
            (error as? Problem)?.message.key == .multipartMalformed
        }
        #expect(parts.count == 1)
        if case .field(let name, let value) = parts.first {
            #expect(name == "text" && value == [0xE0])
        }
    }
}
