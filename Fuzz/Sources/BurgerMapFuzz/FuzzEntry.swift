import CFuzzerDriver
import Foundation

/// The fuzz targets, by the name scripts/fuzz passes in `BURGERMAP_FUZZ_TARGET`.
///
/// One libFuzzer binary holds them all: each target is a function of the input bytes, and the
/// binary picks one at start-up. Linking one ASan executable instead of six saves most of the
/// fuzz build's link time, and the targets share their helpers. Every target checks invariants
/// with `require`, which stops the process like a crash, so libFuzzer keeps the input.
func fuzzTarget(named name: String) -> ((UnsafeRawBufferPointer) -> Void)? {
    switch name {
    case "multipart": MultipartTarget.run
    case "csv": CSVTarget.run
    case "geojson": GeoJSONTarget.run
    case "cursor": CursorTarget.run
    case "query": QueryTarget.run
    case "image": ImageTarget.run
    default: nil
    }
}

nonisolated(unsafe) private var selectedTarget: ((UnsafeRawBufferPointer) -> Void)?

/// libFuzzer's entry point, called with every input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget?(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

/// Picks the target named by `BURGERMAP_FUZZ_TARGET` and hands the process to libFuzzer.
///
/// A `main` that calls libFuzzer's driver, rather than libFuzzer's own `main`: SwiftPM links
/// every executable target with `main` bound to `<Module>_main`, so an executable without one
/// does not link. `LLVMFuzzerTestOneInput` must exist all the same (libFuzzer's runtime, linked
/// whole, refers to it).
@main enum FuzzMain {
    static func main() {
        let name = ProcessInfo.processInfo.environment["BURGERMAP_FUZZ_TARGET"] ?? ""
        guard let target = fuzzTarget(named: name) else {
            let names = "multipart, csv, geojson, cursor, query, image"
            FileHandle.standardError.write(Data("set BURGERMAP_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(2)
        }
        selectedTarget = target
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(bm_fuzz_run(&argc, &argv, fuzzerTestOneInput))
    }
}
