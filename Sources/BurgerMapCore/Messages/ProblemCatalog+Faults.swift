extension ProblemCatalog {
    /// The messages of faults of the machine (a full disk, a read-only file), of the bound on
    /// expensive reads, and of invisible format characters.
    package static let faultMessages: [MessageKey: [Language: String]] = [
        .hostRepeated: [
            .english: "The request names its Host more than once.",
            .korean: "요청에 Host가 두 번 이상 있습니다.",
            .japanese: "リクエストに Host が複数あります。",
        ],
        .metricsClientRefused: [
            .english: "/metrics answers clients on this machine only, and those of --metrics-client.",
            .korean: "/metrics는 이 컴퓨터의 클라이언트와 --metrics-client로 지정한 클라이언트에만 응답합니다.",
            .japanese: "/metrics はこのマシンのクライアントと --metrics-client で指定したクライアントにのみ応答します。",
        ],
        .storageFull: [
            .english: "The disk that holds the database is full; nothing was saved. Retry later.",
            .korean: "데이터베이스가 있는 디스크가 가득 찼습니다. 아무것도 저장되지 않았습니다. 잠시 후 다시 시도하세요.",
            .japanese: "データベースのあるディスクがいっぱいです。何も保存されていません。しばらくしてから再試行してください。",
        ],
        .storageReadOnly: [
            .english: "The database is read-only; nothing was saved. Retry later.",
            .korean: "데이터베이스가 읽기 전용입니다. 아무것도 저장되지 않았습니다. 잠시 후 다시 시도하세요.",
            .japanese: "データベースが読み取り専用です。何も保存されていません。しばらくしてから再試行してください。",
        ],
        .photoStorageFull: [
            .english: "The disk that holds the photos is full; nothing was saved. Retry later.",
            .korean: "사진이 있는 디스크가 가득 찼습니다. 아무것도 저장되지 않았습니다. 잠시 후 다시 시도하세요.",
            .japanese: "写真のあるディスクがいっぱいです。何も保存されていません。しばらくしてから再試行してください。",
        ],
        .photoStorageReadOnly: [
            .english: "The photo folder is read-only; nothing was saved. Retry later.",
            .korean: "사진 폴더가 읽기 전용입니다. 아무것도 저장되지 않았습니다. 잠시 후 다시 시도하세요.",
            .japanese: "写真フォルダーが読み取り専用です。何も保存されていません。しばらくしてから再試行してください。",
        ],
        .photoStoreUnavailable: [
            .english: "The photo store does not answer; nothing was saved. Retry later.",
            .korean: "사진 저장소가 응답하지 않습니다. 아무것도 저장되지 않았습니다. 잠시 후 다시 시도하세요.",
            .japanese: "写真ストアが応答しません。何も保存されていません。しばらくしてから再試行してください。",
        ],
        .photoStoreDenied: [
            .english: "The photo store refuses the service's key; nothing was saved. Retry later.",
            .korean: "사진 저장소가 서비스의 키를 거부합니다. 아무것도 저장되지 않았습니다. 잠시 후 다시 시도하세요.",
            .japanese: "写真ストアがサービスのキーを拒否しています。何も保存されていません。しばらくしてから再試行してください。",
        ],
        .uploadTooSlow: [
            .english: "The upload took longer than {minutes} minutes; nothing was saved. Send it again.",
            .korean: "업로드가 {minutes}분보다 오래 걸렸습니다. 아무것도 저장되지 않았습니다. 다시 보내세요.",
            .japanese: "アップロードに {minutes} 分以上かかりました。何も保存されていません。もう一度送信してください。",
        ],
        .expensiveReadsBusy: [
            .english: "Other searches over large areas are running; retry in a moment, or narrow the area.",
            .korean: "넓은 지역을 찾는 다른 검색이 진행 중입니다. 잠시 후 다시 시도하거나 지역을 좁히세요.",
            .japanese: "広い範囲の検索がほかに実行中です。少し待って再試行するか、範囲を狭めてください。",
        ],
        .fieldFormatCharacters: [
            .english: "{field} must not contain invisible format characters (such as a right-to-left override)",
            .korean: "{field}에 보이지 않는 서식 문자(오른쪽에서 왼쪽 재정의 등)를 넣을 수 없습니다",
            .japanese: "{field} に不可視の書式文字（右から左への上書きなど）は使えません",
        ],
    ]
}
