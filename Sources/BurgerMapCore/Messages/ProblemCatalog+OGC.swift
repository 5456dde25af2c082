extension ProblemCatalog {
    /// The messages of the OGC API – Features routes (`/ogc`).
    package static let ogcMessages: [MessageKey: [Language: String]] = [
        .collectionNotFound: [
            .english: "No collection is named {id}; the collections are places and reviews.",
            .korean: "{id}라는 컬렉션이 없습니다. 컬렉션은 places와 reviews입니다.",
            .japanese: "{id} という名前のコレクションはありません。コレクションは places と reviews です。",
        ],
        .featureNotFound: [
            .english: "The collection has no feature with id {id}.", .korean: "컬렉션에 ID가 {id}인 피처가 없습니다.",
            .japanese: "コレクションに ID {id} のフィーチャーはありません。",
        ],
        .parameterUnknown: [
            .english: "{field} is not a parameter of this route",
            .korean: "{field}은(는) 이 경로의 매개변수가 아닙니다",
            .japanese: "{field} はこのパスのパラメーターではありません",
        ],
        .bboxThreeDimensions: [
            .english:
                "bbox must be four numbers (west,south,east,north); six-number boxes with heights are not supported",
            .korean: "bbox는 네 개의 숫자(west,south,east,north)여야 합니다. 높이가 있는 여섯 숫자 상자는 지원하지 않습니다",
            .japanese: "bbox は4つの数値 (west,south,east,north) でなければなりません。高さを含む6つの数値の範囲はサポートしていません",
        ],
        .bboxCRSUnsupported: [
            .english: "{field} must be {expected}", .korean: "{field}은(는) {expected}이어야 합니다",
            .japanese: "{field} は {expected} でなければなりません",
        ],
        .datetimeMalformed: [
            .english:
                "{field} must be an RFC 3339 date or date-time (2026-05-01, 2026-05-01T10:00:00Z) or an interval start/end, .. for an open end",
            .korean:
                "{field}은(는) RFC 3339 날짜나 날짜-시간(2026-05-01, 2026-05-01T10:00:00Z), 또는 시작/끝 구간(열린 끝은 ..)이어야 합니다",
            .japanese:
                "{field} は RFC 3339 の日付か日時 (2026-05-01, 2026-05-01T10:00:00Z)、または開始/終了の区間 (開いた端は ..) でなければなりません",
        ],
    ]
}
