extension ProblemCatalog {
    /// The messages of requests that break the protocol or a bound on their size.
    package static let safetyMessages: [MessageKey: [Language: String]] = [
        .accountSuspended: [
            .english: "This account is suspended by a moderator.", .korean: "운영자가 이 계정을 정지했습니다.",
            .japanese: "このアカウントはモデレーターによって停止されています。",
        ],
        .moderatorRequired: [
            .english: "Only moderators may do this.", .korean: "운영자만 할 수 있습니다.", .japanese: "モデレーターだけが行えます。",
        ],
        .cannotBlockYourself: [
            .english: "You cannot block yourself.", .korean: "자기 자신을 차단할 수 없습니다.", .japanese: "自分自身はブロックできません。",
        ],
        .blockedUser: [
            .english: "You and this user block one another.", .korean: "이 사용자와 차단 관계입니다.",
            .japanese: "このユーザーとはブロック関係にあります。",
        ],
        .cannotReportYourself: [
            .english: "You cannot report yourself or what you wrote.",
            .korean: "자기 자신이나 자신이 쓴 글은 신고할 수 없습니다.",
            .japanese: "自分自身や自分の投稿は通報できません。",
        ],
        .reportNotFound: [
            .english: "No report has id {id}.", .korean: "ID가 {id}인 신고가 없습니다.", .japanese: "ID {id} の通報はありません。",
        ],
        .cannotSuspendYourself: [
            .english: "You cannot suspend yourself.", .korean: "자기 자신을 정지할 수 없습니다.", .japanese: "自分自身は停止できません。",
        ],
        .writeLimitReached: [
            .english: "You reached the limit of {count} of these in a short time; try again in {seconds} s.",
            .korean: "짧은 시간에 {count}번의 한도에 도달했습니다. {seconds}초 후에 다시 시도하세요.",
            .japanese: "短時間での上限 {count} 回に達しました。{seconds} 秒後にもう一度お試しください。",
        ],
        .requestFramingInvalid: [
            .english: "The request's framing is invalid (chunk sizes or transfer coding); the connection is closed.",
            .korean: "요청의 전송 형식(청크 크기 또는 전송 코딩)이 잘못되었습니다. 연결을 닫습니다.",
            .japanese: "リクエストの転送形式(チャンクサイズまたは転送コーディング)が不正です。接続を閉じます。",
        ],
        .transferCodingUnsupported: [
            .english:
                "The transfer coding \"{coding}\" is not supported; send the body with Content-Length or chunked.",
            .korean: "전송 코딩 \"{coding}\"은(는) 지원하지 않습니다. Content-Length 또는 chunked로 본문을 보내 주세요.",
            .japanese: "転送コーディング「{coding}」はサポートされていません。Content-Length か chunked で本文を送信してください。",
        ],
        .expectationUnsupported: [
            .english: "The expectation \"{expectation}\" is not supported; only 100-continue is.",
            .korean: "Expect 값 \"{expectation}\"은(는) 지원하지 않습니다. 100-continue만 지원합니다.",
            .japanese: "Expect の値「{expectation}」はサポートされていません。100-continue のみ使えます。",
        ],
        .tooManyParts: [
            .english: "The form has more than {max} parts.", .korean: "폼의 파트가 {max}개를 넘습니다.",
            .japanese: "フォームのパートが{max}個を超えています。",
        ],
        .tooManyPartHeaders: [
            .english: "A form part has more than {max} headers.", .korean: "폼 파트의 헤더가 {max}개를 넘습니다.",
            .japanese: "フォームのパートのヘッダーが{max}個を超えています。",
        ],
    ]
}
