/// A sentence for people (a problem's `detail` or a field error's `message`): a key into
/// `ProblemCatalog` and the values to fill in, rendered in the language the client asks for.
public struct Message: Sendable, Equatable {
    public var key: MessageKey
    public var arguments: [String: String]

    public init(_ key: MessageKey, _ arguments: [String: String] = [:]) {
        self.key = key
        self.arguments = arguments
    }

    /// The sentence in `language`, with `{name}` placeholders filled in.
    public func text(in language: Language) -> String {
        var text = ProblemCatalog.template(key, language)
        for (name, value) in arguments {
            text = text.replacingOccurrences(of: "{\(name)}", with: value)
        }
        return text
    }
}

/// Every sentence the service can say in a problem document.
public enum MessageKey: String, Sendable, CaseIterable {
    // Requests in general.
    case noSuchRoute, methodNotAllowed, bodyTooLarge, mediaTypeNotSupported, requestMalformed
    case requestNotServed, invalidJSON, fieldsInvalid, cursorNotIssued, databaseUnavailable, internalError
    // Hostile or broken requests.
    case requestFramingInvalid, transferCodingUnsupported, tooManyParts, tooManyPartHeaders, expectationUnsupported
    // Missing things.
    case placeNotFound, userNotFound, reviewNotFound, photoNotFound, commentNotFound
    // Likes, comments, follows.
    case notCommentAuthor, notCommentOrReviewAuthor, cannotFollowYourself
    // Reviews and uploads.
    case notReviewAuthor, imageUnsupported, imageInvalid, imageTooManyPixels, photoTooLarge, partTooLarge
    case tooManyPhotos, partHeadersTooLarge, multipartMalformed, multipartTruncated, multipartBoundaryMissing
    case multipartPartUnnamed, idempotencyKeyInvalid, idempotencyKeyReused, idempotencyKeyRunning, fieldDuplicate
    // Accounts.
    case authenticationRequired, authorizationNotBearer, accessTokenInvalid, accessTokenExpired
    case invalidCredentials, refreshTokenInvalid, emailTaken, nicknameTaken, tooManyLoginAttempts
    // Fields.
    case fieldRequired, fieldNotNumber, fieldOutOfRange, fieldNotInteger, fieldNotBoolean, fieldWrongType
    case fieldLength, fieldTooLong, fieldControlCharacters, fieldNotUTF8, fieldEmpty, fieldNotNull, fieldNotWebAddress
    case fieldObjectionable
    case emailInvalid, nicknameSpaces
    case bboxRequired, bboxMalformed, bboxLongitudes, bboxLatitudes, bboxSouthAboveNorth
    case searchQueryNoLetters, searchRadiusWithoutPoint, searchScansBusy
    // Changing places.
    case notPlaceCreator, placeHasReviews
    // Places' names in other languages and time zones.
    case languageCodeInvalid, tooManyLanguages, timeZoneUnknown
    // The LookForRealBurger routes.
    case lslpKeyInvalid, postNotFound, productUnknown, restaurantRequired, filesUnavailable, filesRequired
    case emailAvailable, alreadyFollowing, postNotLikeable, linkCommentInvalid
    // Trust and safety.
    case writeLimitReached, accountSuspended, moderatorRequired, cannotSuspendYourself, cannotBlockYourself
    case blockedUser, cannotReportYourself, reportNotFound
    // Faults of the machine and bounds on expensive work.
    case metricsClientRefused, hostRepeated
    case storageFull, storageReadOnly, photoStorageFull, photoStorageReadOnly, expensiveReadsBusy
    case photoStoreUnavailable, photoStoreDenied, uploadTooSlow
    case fieldFormatCharacters
    // Notifications, streams and push.
    case notificationTypeUnknown, notificationSettingsShape, notificationReadSelection, notificationGroupKeysTooMany
    case pushEndpointInvalid, pushEndpointHostNotAllowed, pushKeysInvalid, pushSubscriptionNotFound
    case streamTicketInvalid, streamsFull
    // OGC API – Features (`/ogc`).
    case collectionNotFound, featureNotFound, parameterUnknown, bboxThreeDimensions, bboxCRSUnsupported
    case datetimeMalformed
}

/// The one place where the service's words live, in English, Korean and Japanese: the title of
/// every status a problem answers with and every detail and field message. A test checks that each code and key
/// has all three languages and the same placeholders in each.
public enum ProblemCatalog {
    /// The title of a problem of HTTP status `status`: its problem documents' type is
    /// `about:blank`, so the title is the status's own phrase (RFC 9457 §4.2.1), in the reader's
    /// language; what went wrong is the `code` and the `detail`.
    public static func title(status: Int, _ language: Language) -> String {
        statusTitles[status]?[language] ?? statusTitles[status]?[.english] ?? "HTTP \(status)"
    }

    /// The template of a message, falling back to English.
    public static func template(_ key: MessageKey, _ language: Language) -> String {
        messages[key]?[language] ?? messages[key]?[.english] ?? key.rawValue
    }

    /// The statuses' phrases (RFC 9110's, and their Korean and Japanese), one for each status a
    /// problem code answers with (a test checks every code's).
    public static let statusTitles: [Int: [Language: String]] = [
        400: [.english: "Bad Request", .korean: "잘못된 요청", .japanese: "不正なリクエスト"],
        401: [.english: "Unauthorized", .korean: "인증되지 않음", .japanese: "認証されていません"],
        403: [.english: "Forbidden", .korean: "금지됨", .japanese: "禁止されています"],
        404: [.english: "Not Found", .korean: "찾을 수 없음", .japanese: "見つかりません"],
        405: [.english: "Method Not Allowed", .korean: "허용되지 않는 메서드", .japanese: "許可されていないメソッド"],
        408: [.english: "Request Timeout", .korean: "요청 시간 초과", .japanese: "リクエストタイムアウト"],
        409: [.english: "Conflict", .korean: "충돌", .japanese: "競合"],
        413: [.english: "Content Too Large", .korean: "콘텐츠가 너무 큼", .japanese: "コンテンツが大きすぎます"],
        415: [.english: "Unsupported Media Type", .korean: "지원하지 않는 미디어 유형", .japanese: "サポートされていないメディアタイプ"],
        417: [.english: "Expectation Failed", .korean: "기대 실패", .japanese: "期待に応えられません"],
        422: [.english: "Unprocessable Content", .korean: "처리할 수 없는 콘텐츠", .japanese: "処理できないコンテンツ"],
        429: [.english: "Too Many Requests", .korean: "요청이 너무 많음", .japanese: "リクエストが多すぎます"],
        500: [.english: "Internal Server Error", .korean: "내부 서버 오류", .japanese: "内部サーバーエラー"],
        501: [.english: "Not Implemented", .korean: "구현되지 않음", .japanese: "実装されていません"],
        503: [.english: "Service Unavailable", .korean: "서비스를 사용할 수 없음", .japanese: "サービスを利用できません"],
    ]

    /// Every message template, by key and language.
    public static let messages = coreMessages.merging(placeMessages) { first, _ in first }
        .merging(socialMessages) { first, _ in first }.merging(safetyMessages) { first, _ in first }
        .merging(lfrbMessages) { first, _ in first }.merging(faultMessages) { first, _ in first }
        .merging(notificationMessages) { first, _ in first }.merging(ogcMessages) { first, _ in first }

    private static let coreMessages: [MessageKey: [Language: String]] = [
        .noSuchRoute: [.english: "No such route.", .korean: "존재하지 않는 경로입니다.", .japanese: "そのようなパスはありません。"],
        .methodNotAllowed: [
            .english: "The method is not allowed on this route.", .korean: "이 경로에서 허용되지 않는 메서드입니다.",
            .japanese: "このパスではそのメソッドは使えません。",
        ],
        .bodyTooLarge: [
            .english: "The request body is too large.", .korean: "요청 본문이 너무 큽니다.", .japanese: "リクエスト本文が大きすぎます。",
        ],
        .mediaTypeNotSupported: [
            .english: "The request's media type is not supported; send {expected}.",
            .korean: "요청의 미디어 형식을 지원하지 않습니다. {expected} 형식으로 보내 주세요.",
            .japanese: "リクエストのメディア形式はサポートされていません。{expected} で送信してください。",
        ],
        .requestMalformed: [
            .english: "The request is malformed.", .korean: "요청 형식이 잘못되었습니다.", .japanese: "リクエストの形式が正しくありません。",
        ],
        .requestNotServed: [
            .english: "The request cannot be served ({status}).", .korean: "요청을 처리할 수 없습니다 ({status}).",
            .japanese: "リクエストを処理できません ({status})。",
        ],
        .invalidJSON: [
            .english: "The body is not valid UTF-8 JSON.", .korean: "본문이 올바른 UTF-8 JSON이 아닙니다.",
            .japanese: "本文が正しいUTF-8のJSONではありません。",
        ],
        .fieldsInvalid: [
            .english: "{count} fields are invalid.", .korean: "{count}개 항목이 올바르지 않습니다.",
            .japanese: "{count}個の項目に誤りがあります。",
        ],
        .cursorNotIssued: [
            .english: "The cursor was not issued for this list.", .korean: "이 목록에서 발급된 커서가 아닙니다.",
            .japanese: "このリストで発行されたカーソルではありません。",
        ],
        .databaseUnavailable: [
            .english: "The database does not answer.", .korean: "데이터베이스가 응답하지 않습니다.", .japanese: "データベースが応答しません。",
        ],
        .internalError: [
            .english: "Something went wrong on our side.", .korean: "서버에서 문제가 발생했습니다.", .japanese: "サーバー側で問題が発生しました。",
        ],
        .placeNotFound: [
            .english: "No place has id {id}.", .korean: "ID가 {id}인 장소가 없습니다.", .japanese: "ID {id} の場所はありません。",
        ],
        .reviewNotFound: [
            .english: "No review has id {id}.", .korean: "ID가 {id}인 리뷰가 없습니다.", .japanese: "ID {id} のレビューはありません。",
        ],
        .photoNotFound: [
            .english: "No photo has id {id}.", .korean: "ID가 {id}인 사진이 없습니다.", .japanese: "ID {id} の写真はありません。",
        ],
        .notReviewAuthor: [
            .english: "Only the review's author may change or delete it.",
            .korean: "리뷰 작성자만 수정하거나 삭제할 수 있습니다.",
            .japanese: "レビューの投稿者だけが変更・削除できます。",
        ],
        .imageUnsupported: [
            .english: "{field} is not a JPEG or PNG image.", .korean: "{field}은(는) JPEG 또는 PNG 이미지가 아닙니다.",
            .japanese: "{field} はJPEGまたはPNG画像ではありません。",
        ],
        .imageInvalid: [
            .english: "{field} cannot be read as an image: it is truncated or corrupt.",
            .korean: "{field}을(를) 이미지로 읽을 수 없습니다. 잘렸거나 손상되었습니다.",
            .japanese: "{field} を画像として読み取れません。途中で切れているか壊れています。",
        ],
        .imageTooManyPixels: [
            .english: "{field} declares {width} × {height} pixels; at most {max} megapixels are accepted.",
            .korean: "{field}의 크기가 {width} × {height} 픽셀입니다. 최대 {max}메가픽셀까지 받습니다.",
            .japanese: "{field} は {width} × {height} ピクセルです。受け付けるのは{max}メガピクセルまでです。",
        ],
        .photoTooLarge: [
            .english: "{field} is larger than {max}.", .korean: "{field}이(가) {max}보다 큽니다.",
            .japanese: "{field} が {max} を超えています。",
        ],
        .partTooLarge: [
            .english: "The form part {field} is larger than {max}.", .korean: "폼 항목 {field}이(가) {max}보다 큽니다.",
            .japanese: "フォーム項目 {field} が {max} を超えています。",
        ],
        .tooManyPhotos: [
            .english: "At most {max} photos are accepted.", .korean: "사진은 최대 {max}장까지 받습니다.",
            .japanese: "写真は{max}枚までです。",
        ],
        .partHeadersTooLarge: [
            .english: "The headers of a form part are too large.", .korean: "폼 항목의 헤더가 너무 큽니다.",
            .japanese: "フォーム項目のヘッダーが大きすぎます。",
        ],
        .multipartMalformed: [
            .english: "The multipart body is malformed.", .korean: "multipart 본문 형식이 잘못되었습니다.",
            .japanese: "multipart 本文の形式が正しくありません。",
        ],
        .multipartTruncated: [
            .english: "The multipart body ends before its closing boundary.",
            .korean: "multipart 본문이 마지막 경계 전에 끝났습니다.",
            .japanese: "multipart 本文が終端の境界の前で終わっています。",
        ],
        .multipartBoundaryMissing: [
            .english: "The Content-Type has no usable multipart boundary.",
            .korean: "Content-Type에 사용할 수 있는 multipart 경계가 없습니다.",
            .japanese: "Content-Type に使える multipart の境界がありません。",
        ],
        .multipartPartUnnamed: [
            .english: "Every part needs a Content-Disposition: form-data header with a name.",
            .korean: "모든 항목에는 이름이 있는 Content-Disposition: form-data 헤더가 필요합니다.",
            .japanese: "各項目には name 付きの Content-Disposition: form-data ヘッダーが必要です。",
        ],
        .idempotencyKeyReused: [
            .english: "This Idempotency-Key was used for another request; use a new key for a new request.",
            .korean: "이 Idempotency-Key는 다른 요청에 쓰였습니다. 새 요청에는 새 키를 쓰세요.",
            .japanese: "この Idempotency-Key は別のリクエストに使われています。新しいリクエストには新しいキーを使ってください。",
        ],
        .idempotencyKeyRunning: [
            .english: "The first request with this Idempotency-Key is still running; retry in a moment.",
            .korean: "이 Idempotency-Key의 첫 요청이 아직 처리 중입니다. 잠시 후 다시 시도하세요.",
            .japanese: "この Idempotency-Key の最初のリクエストはまだ処理中です。少し待ってから再試行してください。",
        ],
        .idempotencyKeyInvalid: [
            .english: "{field} must be 1 to 255 visible ASCII characters.",
            .korean: "{field}은(는) 보이는 ASCII 문자 1~255자여야 합니다.",
            .japanese: "{field} は表示可能なASCII文字で1〜255文字にしてください。",
        ],
        .fieldDuplicate: [
            .english: "{field} is sent more than once.", .korean: "{field}이(가) 두 번 이상 전송되었습니다.",
            .japanese: "{field} が複数回送信されています。",
        ],
        .userNotFound: [
            .english: "No user has id {id}.", .korean: "ID가 {id}인 사용자가 없습니다.", .japanese: "ID {id} のユーザーはいません。",
        ],
        .authenticationRequired: [
            .english: "Send an access token: Authorization: Bearer <token>.",
            .korean: "액세스 토큰을 보내 주세요: Authorization: Bearer <token>.",
            .japanese: "アクセストークンを送信してください: Authorization: Bearer <token>。",
        ],
        .authorizationNotBearer: [
            .english: "The Authorization header must be a Bearer token.",
            .korean: "Authorization 헤더는 Bearer 토큰이어야 합니다.",
            .japanese: "Authorization ヘッダーは Bearer トークンでなければなりません。",
        ],
        .accessTokenInvalid: [
            .english: "The access token is not valid; log in again.", .korean: "액세스 토큰이 유효하지 않습니다. 다시 로그인해 주세요.",
            .japanese: "アクセストークンが無効です。もう一度ログインしてください。",
        ],
        .accessTokenExpired: [
            .english: "The access token has expired; refresh it.", .korean: "액세스 토큰이 만료되었습니다. 토큰을 갱신해 주세요.",
            .japanese: "アクセストークンの有効期限が切れました。更新してください。",
        ],
        .invalidCredentials: [
            .english: "The email or the password is wrong.", .korean: "이메일 또는 비밀번호가 틀렸습니다.",
            .japanese: "メールアドレスまたはパスワードが違います。",
        ],
        .refreshTokenInvalid: [
            .english: "The refresh token is used, expired, revoked or unknown; log in again.",
            .korean: "리프레시 토큰이 이미 사용되었거나 만료, 폐기되었거나 알 수 없는 토큰입니다. 다시 로그인해 주세요.",
            .japanese: "リフレッシュトークンは使用済み、期限切れ、失効済み、または不明です。もう一度ログインしてください。",
        ],
        .emailTaken: [
            .english: "An account with this email already exists.", .korean: "이 이메일로 가입한 계정이 이미 있습니다.",
            .japanese: "このメールアドレスのアカウントはすでに存在します。",
        ],
        .nicknameTaken: [
            .english: "This nickname is taken.", .korean: "이미 사용 중인 닉네임입니다.", .japanese: "このニックネームはすでに使われています。",
        ],
        .tooManyLoginAttempts: [
            .english: "Too many failed logins; try again in {seconds} seconds.",
            .korean: "로그인 실패가 너무 많습니다. {seconds}초 후에 다시 시도해 주세요.",
            .japanese: "ログインの失敗が多すぎます。{seconds}秒後にもう一度お試しください。",
        ],
        .fieldRequired: [.english: "{field} is required", .korean: "{field}은(는) 필수입니다", .japanese: "{field} は必須です"],
        .fieldNotNumber: [
            .english: "{field} must be a number", .korean: "{field}은(는) 숫자여야 합니다", .japanese: "{field} は数値でなければなりません",
        ],
        .fieldOutOfRange: [
            .english: "{field} must be {min} to {max}", .korean: "{field}은(는) {min}에서 {max} 사이여야 합니다",
            .japanese: "{field} は {min} から {max} の範囲でなければなりません",
        ],
        .fieldNotInteger: [
            .english: "{field} must be a whole number", .korean: "{field}은(는) 정수여야 합니다",
            .japanese: "{field} は整数でなければなりません",
        ],
        .fieldNotBoolean: [
            .english: "{field} must be true or false", .korean: "{field}은(는) true 또는 false여야 합니다",
            .japanese: "{field} は true または false でなければなりません",
        ],
        .fieldWrongType: [
            .english: "{field} must be {expected}", .korean: "{field}의 형식은 {expected}이어야 합니다",
            .japanese: "{field} は {expected} でなければなりません",
        ],
        .fieldLength: [
            .english: "{field} must be {min} to {max} characters (Unicode code points)",
            .korean: "{field}은(는) {min}~{max}자(유니코드 코드 포인트)여야 합니다",
            .japanese: "{field} は{min}〜{max}文字(Unicode コードポイント)でなければなりません",
        ],
        .fieldTooLong: [
            .english: "{field} must be at most {max} characters (Unicode code points)",
            .korean: "{field}은(는) 최대 {max}자(유니코드 코드 포인트)입니다",
            .japanese: "{field} は{max}文字(Unicode コードポイント)以内でなければなりません",
        ],
        .fieldControlCharacters: [
            .english: "{field} must not contain control characters", .korean: "{field}에 제어 문자를 넣을 수 없습니다",
            .japanese: "{field} に制御文字は使えません",
        ],
        .fieldEmpty: [
            .english: "{field} must not be empty; leave it out for no value",
            .korean: "{field}은(는) 비어 있을 수 없습니다. 값이 없으면 빼고 보내 주세요",
            .japanese: "{field} は空にできません。値がない場合は省略してください",
        ],
        .fieldNotNull: [
            .english: "{field} cannot be null; leave it out to keep the current value",
            .korean: "{field}은(는) null일 수 없습니다. 현재 값을 유지하려면 빼고 보내 주세요",
            .japanese: "{field} は null にできません。現在の値のままにするには省略してください",
        ],
        .fieldNotWebAddress: [
            .english: "{field} must be a web address starting with http:// or https://",
            .korean: "{field}은(는) http:// 또는 https://로 시작하는 웹 주소여야 합니다",
            .japanese: "{field} は http:// または https:// で始まるウェブアドレスでなければなりません",
        ],
        .fieldObjectionable: [
            .english: "{field} contains a word that is not allowed here.",
            .korean: "{field}에 허용되지 않는 단어가 있습니다.",
            .japanese: "{field} にここでは使えない言葉が含まれています。",
        ],
        .fieldNotUTF8: [
            .english: "{field} must be UTF-8 text", .korean: "{field}은(는) UTF-8 텍스트여야 합니다",
            .japanese: "{field} はUTF-8のテキストでなければなりません",
        ],
        .emailInvalid: [
            .english: "email must be a valid email address", .korean: "email은 올바른 이메일 주소여야 합니다",
            .japanese: "email は有効なメールアドレスでなければなりません",
        ],
        .nicknameSpaces: [
            .english: "nickname must not start or end with white space", .korean: "nickname은 공백으로 시작하거나 끝날 수 없습니다",
            .japanese: "nickname の先頭と末尾に空白は使えません",
        ],
    ]
}
