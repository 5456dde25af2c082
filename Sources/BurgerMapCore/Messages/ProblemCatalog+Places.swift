extension ProblemCatalog {
    /// The messages of place queries.
    package static let placeMessages: [MessageKey: [Language: String]] = [
        .bboxRequired: [
            .english: "bbox is required as west,south,east,north", .korean: "bbox는 west,south,east,north 형식으로 필수입니다",
            .japanese: "bbox は west,south,east,north の形式で必須です",
        ],
        .bboxMalformed: [
            .english: "bbox must be four numbers: west,south,east,north",
            .korean: "bbox는 네 개의 숫자(west,south,east,north)여야 합니다",
            .japanese: "bbox は4つの数値 (west,south,east,north) でなければなりません",
        ],
        .bboxLongitudes: [
            .english: "bbox longitudes must be -180 to 180", .korean: "bbox의 경도는 -180에서 180 사이여야 합니다",
            .japanese: "bbox の経度は -180 から 180 の範囲でなければなりません",
        ],
        .bboxLatitudes: [
            .english: "bbox latitudes must be -90 to 90", .korean: "bbox의 위도는 -90에서 90 사이여야 합니다",
            .japanese: "bbox の緯度は -90 から 90 の範囲でなければなりません",
        ],
        .bboxSouthAboveNorth: [
            .english: "bbox south must not be greater than north", .korean: "bbox의 south는 north보다 클 수 없습니다",
            .japanese: "bbox の south は north より大きくできません",
        ],
        .searchQueryNoLetters: [
            .english: "{field} must contain a letter, a digit or a symbol, not only punctuation and spaces",
            .korean: "{field}에는 문장 부호와 공백만이 아니라 글자, 숫자 또는 기호가 있어야 합니다",
            .japanese: "{field} には句読点や空白だけでなく、文字・数字・記号のいずれかが必要です",
        ],
        .searchRadiusWithoutPoint: [
            .english: "{field} needs lat and lng", .korean: "{field}을(를) 쓰려면 lat과 lng가 필요합니다",
            .japanese: "{field} には lat と lng が必要です",
        ],
        .searchScansBusy: [
            .english: "Other searches of two characters are running; retry in a moment, or add a character.",
            .korean: "두 글자 검색이 이미 실행 중입니다. 잠시 후 다시 시도하거나 글자를 더 입력하세요.",
            .japanese: "2文字の検索がほかに実行中です。少し待ってから再試行するか、文字を追加してください。",
        ],
        .notPlaceCreator: [
            .english: "Only the user who added the place may change or delete it.",
            .korean: "장소를 등록한 사용자만 수정하거나 삭제할 수 있습니다.",
            .japanese: "場所を登録したユーザーだけが変更・削除できます。",
        ],
        .placeHasReviews: [
            .english: "The place has {count} reviews; a place with reviews cannot be deleted.",
            .korean: "이 장소에는 리뷰가 {count}개 있습니다. 리뷰가 있는 장소는 삭제할 수 없습니다.",
            .japanese: "この場所には{count}件のレビューがあります。レビューのある場所は削除できません。",
        ],
        .languageCodeInvalid: [
            .english: "{field} is not a language code such as ko, en, ja or zh-Hans",
            .korean: "{field}은(는) ko, en, ja, zh-Hans 같은 언어 코드가 아닙니다",
            .japanese: "{field} は ko、en、ja、zh-Hans のような言語コードではありません",
        ],
        .tooManyLanguages: [
            .english: "{field} may hold at most {max} languages",
            .korean: "{field}에는 언어를 최대 {max}개까지 넣을 수 있습니다",
            .japanese: "{field} に入れられる言語は最大 {max} 個です",
        ],
        .timeZoneUnknown: [
            .english: "{field} must be an IANA time zone name such as Asia/Seoul",
            .korean: "{field}은(는) Asia/Seoul 같은 IANA 시간대 이름이어야 합니다",
            .japanese: "{field} は Asia/Seoul のような IANA タイムゾーン名でなければなりません",
        ],
    ]
}
