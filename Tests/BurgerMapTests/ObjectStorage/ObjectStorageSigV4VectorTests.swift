import BurgerMapObjectStorage
import Crypto
import Foundation
import Testing

/// The signer against AWS's published SigV4 test vectors: the aws-sig-v4-test-suite (service
/// "service", 2015-08-30) and the examples of the S3 API reference ("Signature Calculations for
/// the Authorization Header: Transferring Payload in a Single Chunk" and "Authenticating
/// Requests: Using Query Parameters", 2013-05-24). Each expected value is AWS's, not computed here.
@Suite("ObjectStorage: SigV4 test vectors")
struct ObjectStorageSigV4VectorTests {
    /// One aws-sig-v4-test-suite case: the request (its Host and X-Amz-Date are implied), and the
    /// published canonical request, string to sign and signature.
    struct SuiteCase: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var target: String
        var headers: [(String, String)]
        var body: String = ""
        var canonicalRequest: String
        var stringToSign: String
        var signature: String
        var sessionToken: String? = nil
        var testDescription: String { name }
    }

    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)  // 20150830T123600Z
    static let suiteCredentials = S3Credentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")

    static let suite: [SuiteCase] = [
        SuiteCase(
            name: "get-vanilla", method: "GET", target: "/",
            headers: [],
            canonicalRequest:
                "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SuiteCase(
            name: "get-vanilla-query-order-key-case", method: "GET", target: "/?Param2=value2&Param1=value1",
            headers: [],
            canonicalRequest:
                "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
            signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
        ),
        SuiteCase(
            name: "get-vanilla-query-order-value", method: "GET", target: "/?Param1=value2&Param1=value1",
            headers: [],
            canonicalRequest:
                "GET\n/\nParam1=value1&Param1=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nc968629d70850097a2d8781c9bf7edcb988b04cac14cca9be4acc3595f884606",
            signature: "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"
        ),
        SuiteCase(
            name: "get-vanilla-query-unreserved", method: "GET",
            target:
                "/?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            headers: [],
            canonicalRequest:
                "GET\n/\n-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nc30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177",
            signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"
        ),
        SuiteCase(
            name: "get-vanilla-utf8-query", method: "GET", target: "/?%E1%88%B4=bar",
            headers: [],
            canonicalRequest:
                "GET\n/\n%E1%88%B4=bar\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\neb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073",
            signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"
        ),
        SuiteCase(
            name: "get-vanilla-empty-query-key", method: "GET", target: "/?Param1=value1",
            headers: [],
            canonicalRequest:
                "GET\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n1e24db194ed7d0eec2de28d7369675a243488e08526e8c1c73571282f7c517ab",
            signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"
        ),
        SuiteCase(
            name: "get-utf8", method: "GET", target: "/%E1%88%B4",
            headers: [],
            canonicalRequest:
                "GET\n/%E1%88%B4\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
            signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"
        ),
        SuiteCase(
            name: "get-unreserved", method: "GET",
            target: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            headers: [],
            canonicalRequest:
                "GET\n/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9",
            signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"
        ),
        SuiteCase(
            name: "get-header-key-duplicate", method: "GET", target: "/",
            headers: [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")],
            canonicalRequest:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\ndc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c",
            signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"
        ),
        SuiteCase(
            name: "get-header-value-order", method: "GET", target: "/",
            headers: [
                ("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2"),
            ],
            canonicalRequest:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value4,value1,value3,value2\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n31ce73cd3f3d9f66977ad3dd957dc47af14df92fcd8509f59b349e9137c58b86",
            signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"
        ),
        SuiteCase(
            name: "get-header-value-trim", method: "GET", target: "/",
            headers: [("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")],
            canonicalRequest:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\na726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7",
            signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"
        ),
        SuiteCase(
            name: "normalize-path/get-space", method: "GET", target: "/example%20space/",
            headers: [],
            canonicalRequest:
                "GET\n/example%20space/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86",
            signature: "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"
        ),
        SuiteCase(
            name: "normalize-path/get-slashes", method: "GET", target: "//example//",
            headers: [],
            canonicalRequest:
                "GET\n/example/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\ncb96b4ac96d501f7c5c15bc6d67b3035061cfced4af6585ad927f7e6c985c015",
            signature: "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"
        ),
        SuiteCase(
            name: "normalize-path/get-relative-relative", method: "GET", target: "/example1/example2/../..",
            headers: [],
            canonicalRequest:
                "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SuiteCase(
            name: "normalize-path/get-slash-dot-slash", method: "GET", target: "/./",
            headers: [],
            canonicalRequest:
                "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        ),
        SuiteCase(
            name: "post-vanilla", method: "POST", target: "/",
            headers: [],
            canonicalRequest:
                "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
            signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        ),
        SuiteCase(
            name: "post-vanilla-query", method: "POST", target: "/?Param1=value1",
            headers: [],
            canonicalRequest:
                "POST\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
            signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"
        ),
        SuiteCase(
            name: "post-x-www-form-urlencoded", method: "POST", target: "/",
            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "Param1=value1",
            canonicalRequest:
                "POST\n/\n\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281",
            signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"
        ),
        SuiteCase(
            name: "post-header-key-sort", method: "POST", target: "/",
            headers: [("My-Header1", "value1")],
            canonicalRequest:
                "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n9368318c2967cf6de74404b30c65a91e8f6253e0a8659d6d5319f1a812f87d65",
            signature: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"
        ),
        SuiteCase(
            name: "post-sts-token/post-sts-header-before", method: "POST", target: "/",
            headers: [],
            canonicalRequest:
                "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\nx-amz-security-token:AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==\n\nhost;x-amz-date;x-amz-security-token\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign:
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nc237e1b440d4c63c32ca95b5b99481081cb7b13c7e40434868e71567c1a882f6",
            signature: "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead",
            sessionToken:
                "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="
        ),
    ]

    @Test(arguments: suite)
    func publishedSuiteCase(_ vector: SuiteCase) throws {
        var credentials = Self.suiteCredentials
        credentials.sessionToken = vector.sessionToken
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "service")
        let url = try #require(URL(string: "https://example.amazonaws.com" + vector.target))
        let payloadHash = SHA256.hash(data: Data(vector.body.utf8)).map { String(format: "%02x", $0) }.joined()
        let signed = signer.sign(
            method: vector.method, url: url, headers: vector.headers, payloadHash: payloadHash, date: Self.suiteDate)
        let withoutAuthorization = signed.filter { $0.0 != "Authorization" }
        let canonical = signer.canonicalRequest(
            method: vector.method, url: url, headers: withoutAuthorization, payloadHash: payloadHash)
        #expect(canonical == vector.canonicalRequest)
        #expect(signer.stringToSign(canonicalRequest: canonical, date: Self.suiteDate) == vector.stringToSign)
        let authorization = try #require(signed.first { $0.0 == "Authorization" }?.1)
        let signedHeaders = vector.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .last!
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=\(signedHeaders), Signature=\(vector.signature)")
        #expect(signed.contains { $0.0 == "x-amz-date" && $0.1 == "20150830T123600Z" })
        #expect(!signed.contains { $0.0 == "x-amz-content-sha256" }, "only S3 wants the payload hash header")
    }

    // MARK: The S3 API reference's examples (examplebucket, us-east-1, 2013-05-24)

    static let s3Date = Date(timeIntervalSince1970: 1_369_353_600)  // 20130524T000000Z
    static let s3Signer = SigV4Signer(
        credentials: S3Credentials(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "s3")

    /// Signs like `S3Client` does and returns (hex SHA-256 of the canonical request, signature,
    /// SignedHeaders): the reference prints the first as the last line of its StringToSign.
    func s3Example(_ method: String, _ target: String, _ headers: [(String, String)], payloadHash: String) throws
        -> (canonicalHash: String, signature: String, signedHeaders: String)
    {
        let url = try #require(URL(string: "https://examplebucket.s3.amazonaws.com" + target))
        let signed = Self.s3Signer.sign(
            method: method, url: url, headers: headers, payloadHash: payloadHash, date: Self.s3Date)
        #expect(signed.contains { $0.0 == "x-amz-content-sha256" && $0.1 == payloadHash })
        let canonical = Self.s3Signer.canonicalRequest(
            method: method, url: url, headers: signed.filter { $0.0 != "Authorization" }, payloadHash: payloadHash)
        let authorization = try #require(signed.first { $0.0 == "Authorization" }?.1)
        #expect(
            authorization.hasPrefix(
                "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "))
        let toSign = Self.s3Signer.stringToSign(canonicalRequest: canonical, date: Self.s3Date)
        let signedHeaders = authorization.components(separatedBy: "SignedHeaders=")[1].components(separatedBy: ",")[0]
        return (String(toSign.split(separator: "\n").last!), String(authorization.suffix(64)), signedHeaders)
    }

    @Test func getObjectWithRange() throws {
        let result = try s3Example(
            "GET", "/test.txt", [("Range", "bytes=0-9")], payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(result.canonicalHash == "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972")
        #expect(result.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(result.signedHeaders == "host;range;x-amz-content-sha256;x-amz-date")
    }

    @Test func putObject() throws {
        let payloadHash = SHA256.hash(data: Data("Welcome to Amazon S3.".utf8)).map { String(format: "%02x", $0) }
            .joined()
        #expect(payloadHash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let result = try s3Example(
            "PUT", "/test$file.text",
            [("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
            payloadHash: payloadHash)
        #expect(result.canonicalHash == "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d")
        #expect(result.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
        #expect(result.signedHeaders == "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class")
    }

    @Test func getBucketLifecycle() throws {
        let result = try s3Example("GET", "/?lifecycle", [], payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(result.canonicalHash == "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca")
        #expect(result.signature == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    @Test func listObjects() throws {
        let result = try s3Example("GET", "/?max-keys=2&prefix=J", [], payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(result.canonicalHash == "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7")
        #expect(result.signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    static let presignedExample =
        "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
        + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
        + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"

    @Test func presignedGet() throws {
        let url = try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt"))
        let presigned = Self.s3Signer.presign(method: "GET", url: url, expires: 86400, date: Self.s3Date)
        #expect(presigned.absoluteString == Self.presignedExample)
    }
}
