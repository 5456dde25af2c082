import AsyncHTTPClient
import Foundation
import Testing

@testable import BurgerMapObjectStorage

/// The parts of the client that need no server: locations, URLs, key encoding, credentials from
/// the environment, retry waits and the XML it reads.
@Suite("ObjectStorage: client without a server")
struct ObjectStorageClientTests {
    static let credentials = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "secret")

    func client(_ endpoint: String, bucket: String = "photos", _ addressing: S3Addressing) -> S3Client {
        S3Client(
            configuration: S3Configuration(
                endpoint: URL(string: endpoint)!, region: "us-east-1", bucket: bucket, addressing: addressing,
                credentials: Self.credentials),
            httpClient: HTTPClient.shared)
    }

    @Test func locations() {
        #expect(S3Location("s3://burgermap-photos") == S3Location(bucket: "burgermap-photos", prefix: ""))
        #expect(S3Location("s3://my.bucket-2/") == S3Location(bucket: "my.bucket-2", prefix: ""))
        #expect(S3Location("s3://abc/photos/2026/") == S3Location(bucket: "abc", prefix: "photos/2026"))
        #expect(S3Location("s3://abc//photos//x") == S3Location(bucket: "abc", prefix: "photos/x"))
        #expect(S3Location("s3://" + String(repeating: "a", count: 63)) != nil)
        for bad in [
            "s3://ab", "s3://" + String(repeating: "a", count: 64), "s3://Photos", "s3://under_score", "s3://-abc",
            "s3://abc-", "s3://a..b", "s3://192.168.1.10", "s3://", "https://photos/x", "photos", "S3://photos",
            "s3://ph otos",
        ] {
            #expect(S3Location(bad) == nil, "\(bad)")
        }
    }

    @Test func objectURLs() {
        let key = "places/12/a b+c (1)~x_y-z.jpg"
        #expect(
            client("http://127.0.0.1:8333", .path).objectURL(key: key).absoluteString
                == "http://127.0.0.1:8333/photos/places/12/a%20b%2Bc%20%281%29~x_y-z.jpg")
        #expect(
            client("https://s3.eu-west-1.amazonaws.com", .virtualHost).objectURL(key: key).absoluteString
                == "https://photos.s3.eu-west-1.amazonaws.com/places/12/a%20b%2Bc%20%281%29~x_y-z.jpg")
        // A base path on the endpoint (a store behind a proxy) is kept, with or without its slash.
        #expect(
            client("https://example.org/storage/", .path).objectURL(key: "k").absoluteString
                == "https://example.org/storage/photos/k")
        #expect(
            client("http://minio.local:9000", .virtualHost).objectURL(key: "k").absoluteString
                == "http://photos.minio.local:9000/k")
    }

    @Test func keyEncoding() {
        #expect(
            S3URIEncoding.encode("été/한국어 버거.jpg")
                == "%C3%A9t%C3%A9/%ED%95%9C%EA%B5%AD%EC%96%B4%20%EB%B2%84%EA%B1%B0.jpg")
        #expect(S3URIEncoding.encode("a/b//c") == "a/b//c")
        #expect(S3URIEncoding.encode("a/b", keepSlash: false) == "a%2Fb")
        #expect(S3URIEncoding.encode("100%+=&?#") == "100%25%2B%3D%26%3F%23")
        // The client sends the key as it signs it: every unreserved byte kept, nothing encoded twice.
        let url = client("http://127.0.0.1:8333", .path).objectURL(key: "x/%41 é")
        #expect(url.absoluteString == "http://127.0.0.1:8333/photos/x/%2541%20%C3%A9")
    }

    @Test("the client's presigned URL, built as text, is the signer's, for both addressings and any key")
    func presignedURLMatchesTheSigner() {
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        for (endpoint, addressing) in [
            ("http://127.0.0.1:8333", S3Addressing.path), ("https://s3.example.org/base/", .path),
            ("https://s3.eu-west-1.amazonaws.com", .virtualHost),
        ] {
            for token in [nil, "session/token+="] {
                let configuration = S3Configuration(
                    endpoint: URL(string: endpoint)!, region: "eu-west-1", bucket: "photos", addressing: addressing,
                    credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: token))
                let s3 = S3Client(configuration: configuration, httpClient: HTTPClient.shared)
                let signer = SigV4Signer(credentials: configuration.credentials, region: "eu-west-1", service: "s3")
                for key in ["a/b.jpg", "x/%41 é~.thumb.jpg", "2f1c-uuid.jpg"] {
                    #expect(
                        s3.presignedURL(key: key, expires: 900, at: date)
                            == signer.presign(method: "GET", url: s3.objectURL(key: key), expires: 900, date: date)
                            .absoluteString, "\(endpoint) \(key)")
                }
            }
        }
    }

    @Test func presignedURLThroughTheClientMatchesAWSExample() {
        let s3 = S3Client(
            configuration: S3Configuration(
                endpoint: URL(string: "https://s3.amazonaws.com")!, region: "us-east-1", bucket: "examplebucket",
                addressing: .virtualHost,
                credentials: S3Credentials(
                    accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")),
            httpClient: HTTPClient.shared)
        #expect(
            s3.presignedURL(key: "test.txt", expires: 86400, at: ObjectStorageSigV4VectorTests.s3Date)
                == ObjectStorageSigV4VectorTests.presignedExample)
        // S3's limits: at most 7 days, at least 1 s.
        #expect(s3.presignedURL(key: "k", expires: 10_000_000, at: Date()).contains("X-Amz-Expires=604800&"))
        #expect(s3.presignedURL(key: "k", expires: 0, at: Date()).contains("X-Amz-Expires=1&"))
    }

    @Test func sessionTokenIsSignedInPresignedURLsAndHeaders() throws {
        let signer = SigV4Signer(
            credentials: S3Credentials(accessKeyID: "AK", secretAccessKey: "SK", sessionToken: "to/ken+="),
            region: "us-east-1", service: "s3")
        let url = URL(string: "https://b.s3.amazonaws.com/k")!
        let presigned = signer.presign(method: "GET", url: url, expires: 60, date: Date()).absoluteString
        #expect(presigned.contains("&X-Amz-Security-Token=to%2Fken%2B%3D&X-Amz-SignedHeaders=host&X-Amz-Signature="))
        let signed = signer.sign(method: "GET", url: url, headers: [], payloadHash: "UNSIGNED-PAYLOAD", date: Date())
        let authorization = try #require(signed.first { $0.0 == "Authorization" }?.1)
        #expect(authorization.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
        #expect(signed.contains { $0 == ("Host", "b.s3.amazonaws.com") })
        // A non-default port is part of the signed Host.
        let local = signer.sign(
            method: "GET", url: URL(string: "http://127.0.0.1:8333/b/k")!, headers: [], payloadHash: "x", date: Date())
        #expect(local.contains { $0 == ("Host", "127.0.0.1:8333") })
    }

    @Test func credentialsFromEnvironment() {
        #expect(S3Credentials.fromEnvironment([:]) == nil)
        #expect(S3Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": ""]) == nil)
        #expect(
            S3Credentials.fromEnvironment([
                "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": "",
            ])
                == S3Credentials(accessKeyID: "a", secretAccessKey: "s"))
        #expect(
            S3Credentials.fromEnvironment([
                "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": "t",
            ])
                == S3Credentials(accessKeyID: "a", secretAccessKey: "s", sessionToken: "t"))
    }

    @Test func retryWaitsDoubleWithASeededSpread() {
        let policy = S3RetryPolicy(seed: 42)
        for salt: UInt64 in [0, 1, 12345] {
            for attempt in 1...4 {
                let base = Duration.milliseconds(100) * (1 << (attempt - 1))
                let delay = policy.delay(afterAttempt: attempt, salt: salt)
                #expect(delay >= base * 0.5 && delay < base * 1.5, "attempt \(attempt): \(delay)")
                #expect(delay == S3RetryPolicy(seed: 42).delay(afterAttempt: attempt, salt: salt), "seeded")
            }
        }
        #expect(policy.delay(afterAttempt: 1, salt: 1) != policy.delay(afterAttempt: 1, salt: 2))
        #expect(S3RetryPolicy.standard.attempts == 4 && S3RetryPolicy.standard.firstDelay == .milliseconds(100))
    }

    @Test func listingAndErrorBodies() throws {
        let page = try S3XML.listPage(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>photos</Name><Prefix>p/</Prefix>\
            <KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>\
            <Contents><Key>p/a&amp;b &lt;1&gt;.jpg</Key><LastModified>2026-11-26T06:00:00.123Z</LastModified>\
            <ETag>&quot;x&quot;</ETag><Size>12</Size></Contents>\
            <Contents><Key>p/&#xE9;t&#233;</Key><LastModified>2026-11-26T06:00:01Z</LastModified><Size>0</Size></Contents>\
            <NextContinuationToken>tok/en==</NextContinuationToken></ListBucketResult>
            """)
        #expect(page.objects.map(\.key) == ["p/a&b <1>.jpg", "p/été"])
        #expect(page.objects.map(\.size) == [12, 0])
        #expect(abs(page.objects[0].lastModified.timeIntervalSince1970 - 1_795_672_800.123) < 0.0005)
        #expect(page.next == "tok/en==")
        let last = try S3XML.listPage("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>")
        #expect(last.objects.isEmpty && last.next == nil)
        #expect(throws: S3Error.self) { try S3XML.listPage("<html>proxy error</html>") }
        let error = S3XML.error("<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>")
        #expect(error.code == "AccessDenied" && error.message == "Access Denied")
    }
}
