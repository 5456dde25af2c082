// swift-tools-version:6.1
import PackageDescription

/// Set by scripts/fuzz: adds the fuzz target and instruments the C image codec (see the end).
let fuzzing = Context.environment["BURGERMAP_FUZZ"] == "1"

let package = Package(
    name: "BurgerMap",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "burgermap", targets: ["BurgerMapCommand"]),
        .executable(name: "burgermap-bench", targets: ["BurgerMapBench"]),
        .library(name: "BurgerMap", targets: ["BurgerMap"]),
        .library(name: "BurgerMapObjectStorage", targets: ["BurgerMapObjectStorage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-collections.git", exact: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams.git", exact: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", exact: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/vapor/multipart-kit.git", exact: "4.7.1"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", exact: "1.2.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", exact: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
    ],
    targets: [
        // C shims around SQLite's R*Tree query-callback API: the best-first nearest-neighbour
        // scoring runs once per R*Tree cell, so it stays in C with no Swift bridging per call.
        .target(
            name: "CGeoIndex",
            dependencies: [],
            linkerSettings: [.linkedLibrary("sqlite3"), .linkedLibrary("m")]
        ),
        // libjpeg and libpng behind setjmp-guarded C calls: libjpeg's error_exit must never return
        // into the library, and Swift cannot set a jump point itself.
        .target(
            name: "CImageCodec",
            dependencies: [],
            cSettings: fuzzing ? [.unsafeFlags(["-fsanitize=fuzzer-no-link,address"])] : [],
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16")]
        ),
        // The system zlib (Debian's zlib1g-dev) for the OSM PBF reader's blobs: a module map is all a
        // C library with a plain header needs, no C code of its own.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The domain core: models, one store protocol per feature, the rules both engines must
        // agree on, and the events. It imports neither Hummingbird nor a database driver.
        .target(
            name: "BurgerMapCore",
            dependencies: [
                "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // An S3 client (SigV4 over AsyncHTTPClient) for photos in object storage: it knows nothing of
        // the domain, so the core and the engines stay free of HTTP clients.
        .target(
            name: "BurgerMapObjectStorage",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "BurgerMap",
            dependencies: [
                "BurgerMapCore",
                "BurgerMapObjectStorage",
                "CImageCodec",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/ogc-openapi.json"), .copy("Resources/web")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The SQLite + SpatiaLite engine (the embedded default): it sees the core, never the HTTP
        // service.
        .target(
            name: "BurgerMapSQLite",
            dependencies: [
                "BurgerMapCore",
                "CGeoIndex",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The PostgreSQL + PostGIS engine: it sees the core, never the HTTP service.
        .target(
            name: "BurgerMapPostgres",
            dependencies: [
                "BurgerMapCore",
                "CGeoIndex",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "BurgerMapCommand",
            dependencies: [
                "BurgerMapCore",
                "BurgerMap",
                "BurgerMapObjectStorage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "BurgerMapSQLite",
                "BurgerMapPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "BurgerMapBench",
            dependencies: [
                "BurgerMapCore",
                "BurgerMap",
                "BurgerMapSQLite",
                "BurgerMapPostgres",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "BurgerMapTests",
            dependencies: [
                "BurgerMapCore",
                "BurgerMap",
                "BurgerMapSQLite",
                "BurgerMapPostgres",
                "BurgerMapObjectStorage",
                "CGeoIndex",
                "CImageCodec",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)

// The libFuzzer targets (Fuzz/Sources/BurgerMapFuzz) exist only when BURGERMAP_FUZZ=1, as
// scripts/fuzz sets it: their executable runs libFuzzer's driver, which only links with
// `-sanitize=fuzzer`, and leaving it out keeps `swift build` and `swift build --build-tests` as
// fast as before. Only the code under test is instrumented (`-sanitize=fuzzer,address` on the
// core library and the fuzz targets, as on the C image codec above): the dependencies keep the
// flags of an ordinary debug build, so scripts/fuzz builds in `.build` and reuses what
// `swift build` already compiled there (the fuzz build took 449 s on its own scratch folder with
// every module instrumented). The fuzzers reach internal types (MultipartFormReader, CSVReader,
// QueryReader, JPEGReader…) by `@testable import`, which debug builds allow, so the library keeps
// no fuzzing-only API.
if fuzzing {
    let instrumented: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
    for target in package.targets where target.name == "BurgerMap" || target.name == "BurgerMapCore" {
        target.swiftSettings = (target.swiftSettings ?? []) + instrumented
    }
    package.products.append(.executable(name: "burgermap-fuzz", targets: ["BurgerMapFuzz"]))
    package.targets += [
        .target(name: "CFuzzerDriver", path: "Fuzz/Sources/CFuzzerDriver"),
        .executableTarget(
            name: "BurgerMapFuzz",
            dependencies: [
                "BurgerMapCore",
                "BurgerMap",
                "CFuzzerDriver",
                "CImageCodec",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Fuzz/Sources/BurgerMapFuzz",
            swiftSettings: [.swiftLanguageMode(.v6)] + instrumented,
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        ),
    ]
}
