extension ProblemCatalog {
    /// The messages of notifications, streams and push subscriptions.
    package static let notificationMessages: [MessageKey: [Language: String]] = [
        .notificationTypeUnknown: [
            .english: "{field} names an unknown notification type; known types: {expected}",
            .korean: "{field}에 알 수 없는 알림 유형이 있습니다. 사용 가능한 유형: {expected}",
            .japanese: "{field} に不明な通知の種類があります。使える種類: {expected}",
        ],
        .notificationSettingsShape: [
            .english: "Send \"list\" and \"push\" objects that map type names to true or false.",
            .korean: "유형 이름을 true 또는 false에 대응시키는 \"list\"와 \"push\" 객체를 보내 주세요.",
            .japanese: "種類の名前を true または false に対応させる \"list\" と \"push\" のオブジェクトを送ってください。",
        ],
        .notificationReadSelection: [
            .english: "Send either up_to_id or group_keys.", .korean: "up_to_id와 group_keys 중 하나만 보내 주세요.",
            .japanese: "up_to_id か group_keys のどちらか一方を送ってください。",
        ],
        .notificationGroupKeysTooMany: [
            .english: "At most {max} group keys at once.", .korean: "group_keys는 한 번에 최대 {max}개입니다.",
            .japanese: "group_keys は一度に {max} 個までです。",
        ],
        .pushEndpointInvalid: [
            .english: "The endpoint must be an https URL of at most 1024 bytes, without user name or password.",
            .korean: "endpoint는 사용자 이름이나 비밀번호가 없는 1024바이트 이하의 https URL이어야 합니다.",
            .japanese: "endpoint はユーザー名やパスワードを含まない 1024 バイト以内の https URL でなければなりません。",
        ],
        .pushEndpointHostNotAllowed: [
            .english: "{host} is not a push service this server sends to.",
            .korean: "{host}은(는) 이 서버가 푸시를 보내는 푸시 서비스가 아닙니다.",
            .japanese: "{host} はこのサーバーがプッシュを送るプッシュサービスではありません。",
        ],
        .pushKeysInvalid: [
            .english: "keys.p256dh must be a P-256 public key and keys.auth a 16-byte secret, both base64url.",
            .korean: "keys.p256dh는 P-256 공개 키, keys.auth는 16바이트 비밀 값이어야 하며 둘 다 base64url이어야 합니다.",
            .japanese: "keys.p256dh は P-256 公開鍵、keys.auth は 16 バイトの秘密で、どちらも base64url でなければなりません。",
        ],
        .pushSubscriptionNotFound: [
            .english: "You have no push subscription with id {id}.", .korean: "ID가 {id}인 푸시 구독이 없습니다.",
            .japanese: "ID {id} のプッシュ購読はありません。",
        ],
        .streamTicketInvalid: [
            .english: "The stream ticket is unknown, used or expired; ask for a new one.",
            .korean: "스트림 티켓이 없거나 이미 사용되었거나 만료되었습니다. 새 티켓을 받아 주세요.",
            .japanese: "ストリームのチケットが不明、使用済み、または期限切れです。新しいチケットを取得してください。",
        ],
        .streamsFull: [
            .english: "Too many notification streams are open; try again in a moment.",
            .korean: "열린 알림 스트림이 너무 많습니다. 잠시 후 다시 시도해 주세요.",
            .japanese: "開いている通知ストリームが多すぎます。しばらくしてからもう一度お試しください。",
        ],
    ]
}
