import ArgumentParser
import BurgerMap

/// `burgermap serve`'s options for vector tiles (`/tiles/{z}/{x}/{y}.mvt`).
struct TileOptions: ParsableArguments {
    @Option(
        name: .customLong("vector-tile-cache-mb"),
        help: "Memory for encoded vector tiles, in MiB (0 keeps none). The web map's base layer is --tile-url.")
    var vectorTileCacheMB = TileConfiguration().cacheMegabytes
    @Option(
        name: .customLong("vector-tile-max-age"),
        help: "Cache-Control max-age of vector tiles, in seconds (0: clients revalidate each time, answered 304).")
    var vectorTileMaxAge = TileConfiguration().maxAge

    func validate() throws {
        guard (0...65_536).contains(vectorTileCacheMB) else {
            throw ValidationError("--vector-tile-cache-mb must be 0…65536")
        }
        guard (0...31_536_000).contains(vectorTileMaxAge) else {
            throw ValidationError("--vector-tile-max-age must be 0…31536000 seconds")
        }
    }

    /// The options applied to `configuration`.
    func apply(to configuration: inout TileConfiguration) {
        configuration.cacheMegabytes = vectorTileCacheMB
        configuration.maxAge = vectorTileMaxAge
    }
}
